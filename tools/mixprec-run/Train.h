//===- Train.h - `mixprec-run train`: the training loop ---------*- C++ -*-===//

#ifndef MIXPREC_TOOLS_MIXPREC_RUN_TRAIN_H
#define MIXPREC_TOOLS_MIXPREC_RUN_TRAIN_H

#include "ModelLibrary.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mixprec {

/// Consecutive skipped steps before a run stops, unless --max-skipped says
/// otherwise: 50 halvings take the default initial loss scale, 2^16, to
/// 2^-34, where no gradient a finite scale could save overflows.
constexpr int64_t kDefaultMaxSkipped = 50;

struct TrainOptions {
  std::vector<std::string> data;
  std::string step = "train";
  double lr = 0.01;
  int64_t steps = 100;
  uint64_t seed = 0;
  int64_t logEvery = 50;
  int64_t maxSkipped = kDefaultMaxSkipped; // 0: no limit
  std::string evalFunction;
  std::string evalData, evalLabels;
  std::string resume, save;
  // Where to write the memory plan and the measured peak (JSON); "": no
  // report.
  std::string memoryReport;
};

/// The options of `mixprec-run train`, for --help.
const char *trainUsage();

/// Parses the options after the model ("--name value" pairs); "" or what
/// is wrong. Checks each value (ranges, repeats, options that go together)
/// before anything is compiled or loaded.
std::string parseTrainOptions(const std::vector<std::string> &args,
                              TrainOptions &options);

/// Trains the model in `library` as `options` say; returns the process exit
/// code. The step, data, eval function and data and the checkpoint path
/// are all checked before the first step.
int runTrain(const ModelLibrary &library, const TrainOptions &options);

} // namespace mixprec

#endif // MIXPREC_TOOLS_MIXPREC_RUN_TRAIN_H
