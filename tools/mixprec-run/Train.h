//===- Train.h - `mixprec-run train`: the training loop ---------*- C++ -*-===//

#ifndef MIXPREC_TOOLS_MIXPREC_RUN_TRAIN_H
#define MIXPREC_TOOLS_MIXPREC_RUN_TRAIN_H

#include "ModelLibrary.h"

#include <string>
#include <vector>

namespace mixprec {

/// The options of `mixprec-run train`, for --help.
const char *trainUsage();

/// Trains the model in `library` as `args` (the options after the model)
/// say; returns the process exit code.
int runTrain(const ModelLibrary &library, const std::vector<std::string> &args);

} // namespace mixprec

#endif // MIXPREC_TOOLS_MIXPREC_RUN_TRAIN_H
