// Binary input (every byte 0x00-0xff, so NUL and invalid UTF-8) is a located
// lexer error and a plain failing exit: `not` without --crash fails if
// mixprec-opt dies of a signal. The lexer skips NUL like whitespace, so in
// the ascending file the first bad character is 0x01 at column 2; the
// descending file starts with 0xff, which is not UTF-8.
// RUN: not mixprec-opt %S/Inputs/garbage.bin 2>&1 | FileCheck %s -DFILE=garbage.bin -DCOL=2 --implicit-check-not=error: --implicit-check-not="LLVM ERROR" --implicit-check-not="Stack dump"
// RUN: not mixprec-opt %S/Inputs/garbage-descending.bin 2>&1 | FileCheck %s -DFILE=garbage-descending.bin -DCOL=1 --implicit-check-not=error: --implicit-check-not="LLVM ERROR" --implicit-check-not="Stack dump"

// CHECK: [[FILE]]:1:[[COL]]: error: unexpected character
