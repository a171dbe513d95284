// An unknown command-line option stops mixprec-opt before it reads input.
// RUN: not mixprec-opt --no-such-option %s 2>&1 | FileCheck %s --implicit-check-not=module

// CHECK: mixprec-opt{{(\.exe)?}}: Unknown command line argument '--no-such-option'.  Try: '{{.*}}mixprec-opt{{(\.exe)?}} --help'
