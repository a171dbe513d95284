//===- ModelRuntimeTest.cpp - the C ABI of compiled models ----------------===//
//
// runtime/ModelRuntime.cpp linked with a hand-written function table in place
// of the one mixprec-compile generates: fake functions whose invoke writes
// known values, so every check of mixprec_call can be seen to run (or not
// run) the function, and a train step that can fail as a GPU would.
//
// This is its own executable: the table is a global the runtime links
// against, and a model has exactly one.
//
//===----------------------------------------------------------------------===//

#include "ModelEntries.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

int scaleCalls = 0;
int packCalls = 0;
bool trainFails = false;

/// scale(x: f32[2, 3], factor: f32[]) -> (y: f32[2, 3], count: i64[])
mixprec_status scaleInvoke(const mixprec_tensor *in,
                           const mixprec_tensor *out) {
  ++scaleCalls;
  const float *x = static_cast<const float *>(in[0].data);
  float factor = *static_cast<const float *>(in[1].data);
  float *y = static_cast<float *>(out[0].data);
  for (int i = 0; i < 6; ++i)
    y[i] = x[i] * factor;
  *static_cast<int64_t *>(out[1].data) = 6;
  return MIXPREC_OK;
}

/// pack(mask: bool[4], bits: bf16[2, 2], <long name>: i32[1, 1, 2],
///      half: f16[3]) -> (packed: i32[4])
mixprec_status packInvoke(const mixprec_tensor *in, const mixprec_tensor *out) {
  ++packCalls;
  const uint8_t *mask = static_cast<const uint8_t *>(in[0].data);
  int32_t *packed = static_cast<int32_t *>(out[0].data);
  for (int i = 0; i < 4; ++i)
    packed[i] = mask[i] ? 100 + i : -1;
  return MIXPREC_OK;
}

/// train(w: f32[2], train.step_count: i64[], rng_state: i64[2], x: f32[2],
///       lr: f32[]) -> (loss: f32[], w: f32[2], train.step_count: i64[]):
/// w - lr * x. With trainFails it writes part of its results and fails, as
/// a CUDA model whose kernel faults does.
mixprec_status trainInvoke(const mixprec_tensor *in,
                           const mixprec_tensor *out) {
  const float *w = static_cast<const float *>(in[0].data);
  const float *x = static_cast<const float *>(in[3].data);
  float lr = *static_cast<const float *>(in[4].data);
  float *updated = static_cast<float *>(out[1].data);
  for (int i = 0; i < 2; ++i)
    updated[i] = trainFails ? NAN : w[i] - lr * x[i];
  if (trainFails)
    return mixprec_fail(MIXPREC_DEVICE_ERROR,
                        "running kernel 'train_0': fake fault");
  *static_cast<float *>(out[0].data) = x[0] + x[1];
  *static_cast<int64_t *>(out[2].data) =
      *static_cast<const int64_t *>(in[1].data) + 1;
  return MIXPREC_OK;
}

const int64_t kMatrixShape[] = {2, 3};
const int64_t kVector4Shape[] = {4};
const int64_t kSquareShape[] = {2, 2};
const int64_t kRank3Shape[] = {1, 1, 2};
const int64_t kVector3Shape[] = {3};
const int64_t kVector2Shape[] = {2};

// Longer than the runtime's message buffer: messages are cut, not overrun.
const std::string kLongName(700, 'z');

const mixprec_tensor_spec kScaleInputs[] = {
    {"x", MIXPREC_F32, 2, kMatrixShape},
    {"factor", MIXPREC_F32, 0, nullptr},
};
const mixprec_tensor_spec kScaleOutputs[] = {
    {"y", MIXPREC_F32, 2, kMatrixShape},
    {"count", MIXPREC_I64, 0, nullptr},
};
const mixprec_tensor_spec kPackInputs[] = {
    {"mask", MIXPREC_BOOL, 1, kVector4Shape},
    {"bits", MIXPREC_BF16, 2, kSquareShape},
    {kLongName.c_str(), MIXPREC_I32, 3, kRank3Shape},
    {"half", MIXPREC_F16, 1, kVector3Shape},
};
const mixprec_tensor_spec kPackOutputs[] = {
    {"packed", MIXPREC_I32, 1, kVector4Shape},
};
const mixprec_tensor_spec kWeights = {"w", MIXPREC_F32, 1, kVector2Shape};
const mixprec_tensor_spec kStepCount = {"train.step_count", MIXPREC_I64, 0,
                                        nullptr};
const int64_t kRngShape[] = {2};
const mixprec_tensor_spec kTrainInputs[] = {
    kWeights,
    kStepCount,
    {"rng_state", MIXPREC_I64, 1, kRngShape},
    {"x", MIXPREC_F32, 1, kVector2Shape},
    {"lr", MIXPREC_F32, 0, nullptr},
};
const mixprec_tensor_spec kTrainOutputs[] = {
    {"loss", MIXPREC_F32, 0, nullptr},
    kWeights,
    kStepCount,
};

} // namespace

// The table mixprec-compile would generate (ModelEntries.h declares both
// extern "C").
const mixprec_model_entry mixprec_model_entries[] = {
    {{"scale", 2, kScaleInputs, 2, kScaleOutputs},
     scaleInvoke,
     0,
     nullptr,
     0,
     0},
    {{"pack", 4, kPackInputs, 1, kPackOutputs}, packInvoke, 0, nullptr, 0, 0},
    {{"train", 5, kTrainInputs, 3, kTrainOutputs},
     trainInvoke,
     1,
     nullptr,
     0,
     0},
};
const int32_t mixprec_model_num_entries = 3;
const mixprec_model_state mixprec_model_states[] = {
    {&kWeights, MIXPREC_STATE_PARAMETER, nullptr, MIXPREC_INIT_CONSTANT, 0.5,
     0.0, 0},
    {&kStepCount, MIXPREC_STATE_STEP_COUNT, "train", MIXPREC_INIT_CONSTANT, 0.0,
     0.0, 0},
};
const int32_t mixprec_model_num_states = 2;

namespace {

constexpr float kSentinelFloat = -12345.0f;
constexpr int64_t kSentinelI64 = 0x5a5a5a5a5a5a5a5a;

/// Arguments of a valid call of scale, which each test then breaks.
struct ScaleCall {
  float x[6] = {1, 2, 3, 4, 5, 6};
  float factor = 2.0f;
  float y[6];
  int64_t count = kSentinelI64;
  std::vector<mixprec_tensor> inputs = {
      {x, MIXPREC_F32, 2, kMatrixShape},
      {&factor, MIXPREC_F32, 0, nullptr},
  };
  std::vector<mixprec_tensor> outputs = {
      {y, MIXPREC_F32, 2, kMatrixShape},
      {&count, MIXPREC_I64, 0, nullptr},
  };

  ScaleCall() {
    for (float &value : y)
      value = kSentinelFloat;
  }

  mixprec_status call(const char *name = "scale") {
    return mixprec_call(name, inputs.data(), int32_t(inputs.size()),
                        outputs.data(), int32_t(outputs.size()));
  }

  bool outputsUntouched() const {
    for (float value : y)
      if (value != kSentinelFloat)
        return false;
    return count == kSentinelI64;
  }
};

class ModelRuntime : public ::testing::Test {
protected:
  void SetUp() override { scaleCalls = packCalls = 0; }

  /// Expects `status` to be MIXPREC_INVALID_ARGUMENT with a message holding
  /// each of `parts`, the function not to have run and the outputs of `call`
  /// to be untouched.
  void expectRejected(mixprec_status status, const ScaleCall &call,
                      std::vector<std::string> parts) {
    EXPECT_EQ(status, MIXPREC_INVALID_ARGUMENT);
    std::string message = mixprec_last_error();
    for (const std::string &part : parts)
      EXPECT_NE(message.find(part), std::string::npos)
          << "'" << part << "' not in: " << message;
    EXPECT_EQ(scaleCalls, 0) << "the function ran: " << message;
    EXPECT_TRUE(call.outputsUntouched()) << message;
  }
};

//===----------------------------------------------------------------------===//
// The function table
//===----------------------------------------------------------------------===//

TEST_F(ModelRuntime, AbiVersion) {
  EXPECT_EQ(mixprec_abi_version(), MIXPREC_API_VERSION);
  EXPECT_EQ(MIXPREC_API_VERSION, 5);
}

TEST_F(ModelRuntime, TheTableOfTheVersionHoldsEveryEntryPointInOrder) {
  const mixprec_api *api = mixprec_get_api(MIXPREC_API_VERSION);
  ASSERT_NE(api, nullptr);
  // Version 5's layout: 29 entry points, in the order of
  // mixprec_entry_points.def.
  static_assert(sizeof(mixprec_api) == 29 * sizeof(void (*)()));
  const auto *slots = reinterpret_cast<const void *const *>(api);
  EXPECT_EQ(slots[0], reinterpret_cast<const void *>(&mixprec_num_functions));
  EXPECT_EQ(slots[3], reinterpret_cast<const void *>(&mixprec_call));
  EXPECT_EQ(slots[4], reinterpret_cast<const void *>(&mixprec_call_function));
  EXPECT_EQ(slots[6], reinterpret_cast<const void *>(&mixprec_device_memory));
  EXPECT_EQ(slots[12],
            reinterpret_cast<const void *>(&mixprec_trainer_step_count));
  EXPECT_EQ(slots[23], reinterpret_cast<const void *>(&mixprec_dtype_name));
  EXPECT_EQ(slots[25],
            reinterpret_cast<const void *>(&mixprec_function_memory));
  EXPECT_EQ(slots[26], reinterpret_cast<const void *>(&mixprec_trainer_memory));
  EXPECT_EQ(slots[24], reinterpret_cast<const void *>(&mixprec_state_role_at));
  EXPECT_EQ(slots[27],
            reinterpret_cast<const void *>(&mixprec_set_num_threads));
  EXPECT_EQ(slots[28], reinterpret_cast<const void *>(&mixprec_num_threads));
  EXPECT_EQ(api->mixprec_last_error, &mixprec_last_error);
  EXPECT_EQ(api->mixprec_trainer_evaluate, &mixprec_trainer_evaluate);
  int32_t count = 0;
  ASSERT_EQ(api->mixprec_num_functions(&count), MIXPREC_OK);
  EXPECT_EQ(count, 3);
}

TEST_F(ModelRuntime, TheThreadCountIsOneTo1024) {
  int32_t saved = 0;
  ASSERT_EQ(mixprec_num_threads(&saved), MIXPREC_OK);
  EXPECT_GE(saved, 1);
  ASSERT_EQ(mixprec_set_num_threads(3), MIXPREC_OK);
  int32_t count = 0;
  ASSERT_EQ(mixprec_num_threads(&count), MIXPREC_OK);
  EXPECT_EQ(count, 3);
  for (int32_t bad : {0, -1, 1025}) {
    EXPECT_EQ(mixprec_set_num_threads(bad), MIXPREC_INVALID_ARGUMENT) << bad;
    EXPECT_NE(std::string(mixprec_last_error()).find("1 to 1024"),
              std::string::npos);
  }
  ASSERT_EQ(mixprec_num_threads(&count), MIXPREC_OK);
  EXPECT_EQ(count, 3);
  EXPECT_EQ(mixprec_num_threads(nullptr), MIXPREC_INVALID_ARGUMENT);
  ASSERT_EQ(mixprec_set_num_threads(saved), MIXPREC_OK);
}

TEST_F(ModelRuntime, NoTableOfAnotherVersion) {
  for (uint32_t version : {0u, 1u, 2u, 3u, 4u, 6u, 0xFFFFFFFFu})
    EXPECT_EQ(mixprec_get_api(version), nullptr) << version;
}

/// The function at `index`; null, with the status checked, when there is
/// none.
const mixprec_function *functionAt(int32_t index) {
  const mixprec_function *function = nullptr;
  mixprec_status status = mixprec_function_at(index, &function);
  EXPECT_EQ(status == MIXPREC_OK, function != nullptr) << index;
  return function;
}

/// The function `name`, or null.
const mixprec_function *findFunction(const char *name) {
  const mixprec_function *function = nullptr;
  mixprec_status status = mixprec_find_function(name, &function);
  EXPECT_EQ(status, function ? MIXPREC_OK : MIXPREC_NOT_FOUND);
  return function;
}

TEST_F(ModelRuntime, FunctionAtBounds) {
  int32_t count = -1;
  ASSERT_EQ(mixprec_num_functions(&count), MIXPREC_OK);
  ASSERT_EQ(count, 3);
  const mixprec_function *scale = functionAt(0);
  const mixprec_function *pack = functionAt(1);
  ASSERT_NE(scale, nullptr);
  ASSERT_NE(pack, nullptr);
  EXPECT_STREQ(scale->name, "scale");
  EXPECT_STREQ(pack->name, "pack");
  EXPECT_EQ(scale->num_inputs, 2);
  EXPECT_EQ(scale->inputs, kScaleInputs);
  EXPECT_EQ(scale->num_outputs, 2);
  EXPECT_EQ(scale->outputs, kScaleOutputs);
  for (int32_t index : {-1, 3, 4, INT32_MIN, INT32_MAX}) {
    const mixprec_function *unchanged = scale;
    EXPECT_EQ(mixprec_function_at(index, &unchanged), MIXPREC_INVALID_ARGUMENT)
        << index;
    EXPECT_EQ(unchanged, scale) << index;
  }
  EXPECT_STREQ(mixprec_last_error(),
               "no function at index 2147483647: the model has 3");
}

TEST_F(ModelRuntime, FindFunction) {
  EXPECT_EQ(findFunction("scale"), functionAt(0));
  EXPECT_EQ(findFunction("pack"), functionAt(1));
  for (const char *name : {"", "scal", "scale2", "Scale", "pack ", "none"})
    EXPECT_EQ(findFunction(name), nullptr) << name;
  EXPECT_STREQ(mixprec_last_error(), "no function named 'none'");
  EXPECT_EQ(findFunction(nullptr), nullptr);
}

TEST_F(ModelRuntime, OutParametersMustNotBeNull) {
  EXPECT_EQ(mixprec_num_functions(nullptr), MIXPREC_INVALID_ARGUMENT);
  EXPECT_STREQ(mixprec_last_error(),
               "mixprec_num_functions: no place for the count");
  EXPECT_EQ(mixprec_function_at(0, nullptr), MIXPREC_INVALID_ARGUMENT);
  EXPECT_EQ(mixprec_find_function("scale", nullptr), MIXPREC_INVALID_ARGUMENT);
  EXPECT_EQ(mixprec_num_states(nullptr), MIXPREC_INVALID_ARGUMENT);
  EXPECT_EQ(mixprec_state_at(0, nullptr), MIXPREC_INVALID_ARGUMENT);
  EXPECT_EQ(mixprec_dtype_size(MIXPREC_F32, nullptr), MIXPREC_INVALID_ARGUMENT);
  EXPECT_EQ(mixprec_dtype_name(MIXPREC_F32, nullptr), MIXPREC_INVALID_ARGUMENT);
  EXPECT_STREQ(mixprec_last_error(),
               "mixprec_dtype_name: no place for the name");
}

TEST_F(ModelRuntime, StateAtBounds) {
  int32_t count = -1;
  ASSERT_EQ(mixprec_num_states(&count), MIXPREC_OK);
  ASSERT_EQ(count, 2);
  const mixprec_tensor_spec *spec = nullptr;
  ASSERT_EQ(mixprec_state_at(1, &spec), MIXPREC_OK);
  EXPECT_EQ(spec, &kStepCount);
  for (int32_t index : {-1, 2, INT32_MIN, INT32_MAX}) {
    const mixprec_tensor_spec *unchanged = &kWeights;
    EXPECT_EQ(mixprec_state_at(index, &unchanged), MIXPREC_INVALID_ARGUMENT)
        << index;
    EXPECT_EQ(unchanged, &kWeights) << index;
  }
  EXPECT_STREQ(mixprec_last_error(),
               "no parameter or buffer at index 2147483647: the model has 2");
}

TEST_F(ModelRuntime, StateRoleAtGivesEachStatesRoleAndStep) {
  mixprec_state_role role = MIXPREC_STATE_BUFFER;
  const char *step = "unset";
  ASSERT_EQ(mixprec_state_role_at(0, &role, &step), MIXPREC_OK);
  EXPECT_EQ(role, MIXPREC_STATE_PARAMETER);
  EXPECT_EQ(step, nullptr);
  ASSERT_EQ(mixprec_state_role_at(1, &role, &step), MIXPREC_OK);
  EXPECT_EQ(role, MIXPREC_STATE_STEP_COUNT);
  EXPECT_STREQ(step, "train");
  for (int32_t index : {-1, 2, INT32_MIN, INT32_MAX}) {
    mixprec_state_role unchanged = MIXPREC_STATE_MOMENT;
    const char *unchangedStep = "unset";
    EXPECT_EQ(mixprec_state_role_at(index, &unchanged, &unchangedStep),
              MIXPREC_INVALID_ARGUMENT)
        << index;
    EXPECT_EQ(unchanged, MIXPREC_STATE_MOMENT) << index;
    EXPECT_STREQ(unchangedStep, "unset") << index;
  }
  EXPECT_STREQ(mixprec_last_error(),
               "no parameter or buffer at index 2147483647: the model has 2");
  EXPECT_EQ(mixprec_state_role_at(0, nullptr, &step), MIXPREC_INVALID_ARGUMENT);
  EXPECT_EQ(mixprec_state_role_at(0, &role, nullptr), MIXPREC_INVALID_ARGUMENT);
  EXPECT_STREQ(mixprec_last_error(),
               "mixprec_state_role_at: no place for the step");
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

TEST_F(ModelRuntime, CallSucceeds) {
  ScaleCall call;
  ASSERT_EQ(call.call(), MIXPREC_OK) << mixprec_last_error();
  EXPECT_EQ(scaleCalls, 1);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(call.y[i], 2.0f * float(i + 1)) << i;
  EXPECT_EQ(call.count, 6);
}

TEST_F(ModelRuntime, CallOfEveryDtype) {
  uint8_t mask[4] = {1, 0, 1, 1};
  uint16_t bits[4] = {0x3f80, 0, 0, 0};
  int32_t ints[2] = {7, 8};
  uint16_t half[3] = {0x3c00, 0, 0};
  int32_t packed[4] = {0, 0, 0, 0};
  mixprec_tensor inputs[] = {{mask, MIXPREC_BOOL, 1, kVector4Shape},
                             {bits, MIXPREC_BF16, 2, kSquareShape},
                             {ints, MIXPREC_I32, 3, kRank3Shape},
                             {half, MIXPREC_F16, 1, kVector3Shape}};
  mixprec_tensor outputs[] = {{packed, MIXPREC_I32, 1, kVector4Shape}};
  ASSERT_EQ(mixprec_call("pack", inputs, 4, outputs, 1), MIXPREC_OK)
      << mixprec_last_error();
  EXPECT_EQ(packCalls, 1);
  EXPECT_EQ(scaleCalls, 0);
  EXPECT_EQ(packed[0], 100);
  EXPECT_EQ(packed[1], -1);
  EXPECT_EQ(packed[2], 102);
  EXPECT_EQ(packed[3], 103);
}

TEST_F(ModelRuntime, ShapeArraysNeedOnlyEqualValues) {
  // The caller's shape is compared by value, not by pointer; a rank-0 tensor
  // may carry a (useless) shape pointer.
  ScaleCall call;
  int64_t shape[] = {2, 3};
  int64_t unused = 99;
  call.inputs[0].shape = shape;
  call.inputs[1].shape = &unused;
  ASSERT_EQ(call.call(), MIXPREC_OK) << mixprec_last_error();
  EXPECT_EQ(call.count, 6);
}

TEST_F(ModelRuntime, UnknownFunction) {
  ScaleCall call;
  EXPECT_EQ(call.call("nope"), MIXPREC_NOT_FOUND);
  EXPECT_NE(std::string(mixprec_last_error()).find("'nope'"), std::string::npos)
      << mixprec_last_error();
  EXPECT_EQ(call.call(nullptr), MIXPREC_NOT_FOUND);
  EXPECT_NE(std::string(mixprec_last_error()).find("(null)"), std::string::npos)
      << mixprec_last_error();
  EXPECT_EQ(call.call(""), MIXPREC_NOT_FOUND);
  EXPECT_EQ(scaleCalls + packCalls, 0);
  EXPECT_TRUE(call.outputsUntouched());
}

TEST_F(ModelRuntime, TooFewInputs) {
  ScaleCall call;
  call.inputs.pop_back();
  expectRejected(
      call.call(), call,
      {"scale", "expects 2 inputs, got 1", "input 1", "'factor'", "missing"});
  ScaleCall none;
  none.inputs.clear();
  expectRejected(none.call(), none, {"got 0", "input 0 ('x') is missing"});
  expectRejected(
      mixprec_call("scale", none.inputs.data(), -1, none.outputs.data(), 2),
      none, {"got -1", "input 0 ('x') is missing"});
}

TEST_F(ModelRuntime, TooManyInputs) {
  ScaleCall call;
  call.inputs.push_back(call.inputs[1]);
  expectRejected(call.call(), call,
                 {"scale", "expects 2 inputs, got 3", "input 2"});
}

TEST_F(ModelRuntime, WrongOutputCounts) {
  ScaleCall call;
  mixprec_tensor count = call.outputs[1];
  call.outputs.pop_back();
  expectRejected(call.call(), call,
                 {"expects 2 outputs, got 1", "output 1 ('count') is missing"});
  call.outputs.push_back(count);
  call.outputs.push_back(count);
  expectRejected(call.call(), call, {"expects 2 outputs, got 3", "output 2"});
}

TEST_F(ModelRuntime, NullTensorArrays) {
  ScaleCall call;
  expectRejected(mixprec_call("scale", nullptr, 2, call.outputs.data(), 2),
                 call, {"scale", "inputs", "null"});
  expectRejected(mixprec_call("scale", call.inputs.data(), 2, nullptr, 2), call,
                 {"scale", "outputs", "null"});
}

TEST_F(ModelRuntime, WrongDtype) {
  ScaleCall call;
  call.inputs[1].dtype = MIXPREC_I32;
  expectRejected(call.call(), call,
                 {"scale", "input 1", "'factor'", "must be f32[], got i32[]"});
  ScaleCall unknown;
  unknown.inputs[0].dtype = mixprec_dtype(42);
  expectRejected(unknown.call(), unknown,
                 {"input 0", "'x'", "must be f32[2, 3], got dtype 42[2, 3]"});
}

TEST_F(ModelRuntime, WrongRank) {
  ScaleCall call;
  int64_t shape[] = {6};
  call.inputs[0].rank = 1;
  call.inputs[0].shape = shape;
  expectRejected(call.call(), call,
                 {"input 0", "'x'", "must be f32[2, 3], got f32[6]"});
  ScaleCall scalar;
  scalar.inputs[1].rank = 1;
  scalar.inputs[1].shape = shape;
  expectRejected(scalar.call(), scalar,
                 {"input 1", "'factor'", "must be f32[], got f32[6]"});
  ScaleCall negative;
  negative.inputs[0].rank = -2;
  expectRejected(negative.call(), negative,
                 {"input 0", "'x'", "must be f32[2, 3], got f32 of rank -2"});
}

TEST_F(ModelRuntime, WrongShape) {
  for (int dim = 0; dim < 2; ++dim) {
    ScaleCall call;
    int64_t shape[] = {2, 3};
    shape[dim] += 1;
    call.inputs[0].shape = shape;
    std::string expected = "must be f32[2, 3], got f32[" +
                           std::to_string(shape[0]) + ", " +
                           std::to_string(shape[1]) + "]";
    expectRejected(call.call(), call, {"input 0", "'x'", expected});
  }
  // The transposed shape has the same element count and is still wrong.
  ScaleCall transposed;
  int64_t shape[] = {3, 2};
  transposed.inputs[0].shape = shape;
  expectRejected(transposed.call(), transposed,
                 {"input 0", "'x'", "must be f32[2, 3], got f32[3, 2]"});
}

TEST_F(ModelRuntime, NullShape) {
  ScaleCall call;
  call.inputs[0].shape = nullptr;
  expectRejected(call.call(), call,
                 {"input 0", "'x'", "got f32 of rank 2 without a shape"});
}

TEST_F(ModelRuntime, NullData) {
  ScaleCall call;
  call.inputs[1].data = nullptr; // a rank-0 tensor needs data too
  expectRejected(call.call(), call, {"input 1", "'factor'", "has no data"});
  ScaleCall matrix;
  matrix.inputs[0].data = nullptr;
  expectRejected(matrix.call(), matrix, {"input 0", "'x'", "has no data"});
}

TEST_F(ModelRuntime, OutputsAreCheckedToo) {
  // Every input is valid; the outputs are checked before the function runs.
  ScaleCall call;
  call.outputs[1].dtype = MIXPREC_I32;
  expectRejected(call.call(), call,
                 {"scale", "output 1", "'count'", "must be i64[], got i32[]"});
  ScaleCall shape;
  int64_t wrong[] = {2, 4};
  shape.outputs[0].shape = wrong;
  expectRejected(shape.call(), shape,
                 {"output 0", "'y'", "must be f32[2, 3], got f32[2, 4]"});
  ScaleCall data;
  data.outputs[1].data = nullptr;
  expectRejected(data.call(), data, {"output 1", "'count'", "has no data"});
}

TEST_F(ModelRuntime, FirstBadArgumentIsReported) {
  ScaleCall call;
  call.inputs[1].dtype = MIXPREC_F16;
  call.outputs[0].dtype = MIXPREC_F16;
  expectRejected(call.call(), call, {"input 1", "'factor'"});
}

TEST_F(ModelRuntime, LongMessagesAreCut) {
  uint8_t mask[4] = {};
  uint16_t bits[4] = {};
  int32_t ints[2] = {};
  uint16_t half[3] = {};
  int32_t packed[4] = {-7, -7, -7, -7};
  mixprec_tensor inputs[] = {{mask, MIXPREC_BOOL, 1, kVector4Shape},
                             {bits, MIXPREC_BF16, 2, kSquareShape},
                             {ints, MIXPREC_I64, 3, kRank3Shape},
                             {half, MIXPREC_F16, 1, kVector3Shape}};
  mixprec_tensor outputs[] = {{packed, MIXPREC_I32, 1, kVector4Shape}};
  ASSERT_EQ(mixprec_call("pack", inputs, 4, outputs, 1),
            MIXPREC_INVALID_ARGUMENT);
  std::string message = mixprec_last_error();
  EXPECT_EQ(message.rfind("pack: input 2 ('zzz", 0), 0u) << message;
  EXPECT_LT(message.size(), 512u);
  EXPECT_EQ(packCalls, 0);
  for (int32_t value : packed)
    EXPECT_EQ(value, -7);
}

//===----------------------------------------------------------------------===//
// Calls by handle
//===----------------------------------------------------------------------===//

TEST_F(ModelRuntime, CallByHandleRunsTheFunction) {
  ScaleCall call;
  const mixprec_function *scale = findFunction("scale");
  ASSERT_NE(scale, nullptr);
  ASSERT_EQ(mixprec_call_function(scale, call.inputs.data(), 2,
                                  call.outputs.data(), 2),
            MIXPREC_OK)
      << mixprec_last_error();
  EXPECT_EQ(scaleCalls, 1);
  EXPECT_EQ(packCalls, 0);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(call.y[i], 2.0f * float(i + 1)) << i;
  EXPECT_EQ(call.count, 6);
}

TEST_F(ModelRuntime, CallByHandleChecksAsCallByName) {
  ScaleCall call;
  call.inputs[0].shape = kVector4Shape;
  call.inputs[0].rank = 1;
  expectRejected(mixprec_call_function(functionAt(0), call.inputs.data(), 2,
                                       call.outputs.data(), 2),
                 call, {"scale: input 0 ('x') must be f32[2, 3], got f32[4]"});
  ScaleCall few;
  expectRejected(mixprec_call_function(functionAt(0), few.inputs.data(), 1,
                                       few.outputs.data(), 2),
                 few, {"expects 2 inputs, got 1", "input 1 ('factor')"});
}

TEST_F(ModelRuntime, CallByHandleRefusesPointersItDidNotGive) {
  ScaleCall call;
  const mixprec_function *scale = functionAt(0);
  // Equal contents at another address is not a handle.
  const mixprec_function copy = *scale;
  const auto *inside = reinterpret_cast<const mixprec_function *>(
      reinterpret_cast<const char *>(scale) + 1);
  const auto *pastTheEnd = reinterpret_cast<const mixprec_function *>(
      reinterpret_cast<const char *>(scale) + 3 * sizeof(mixprec_model_entry));
  for (const mixprec_function *handle :
       {static_cast<const mixprec_function *>(nullptr), &copy, inside,
        pastTheEnd}) {
    expectRejected(mixprec_call_function(handle, call.inputs.data(), 2,
                                         call.outputs.data(), 2),
                   call,
                   {"mixprec_call_function: ", "is no function of this "
                                               "model"});
  }
}

//===----------------------------------------------------------------------===//
// mixprec_last_error
//===----------------------------------------------------------------------===//

TEST_F(ModelRuntime, LastErrorSurvivesSuccessfulCalls) {
  ScaleCall bad;
  bad.inputs[1].dtype = MIXPREC_I32;
  ASSERT_EQ(bad.call(), MIXPREC_INVALID_ARGUMENT);
  std::string message = mixprec_last_error();
  ScaleCall good;
  ASSERT_EQ(good.call(), MIXPREC_OK);
  EXPECT_EQ(std::string(mixprec_last_error()), message);
}

TEST_F(ModelRuntime, LastErrorIsPerThread) {
  ScaleCall bad;
  bad.inputs[1].dtype = MIXPREC_I32;
  ASSERT_EQ(bad.call(), MIXPREC_INVALID_ARGUMENT);
  std::string message = mixprec_last_error();
  std::string otherMessage;
  std::thread other([&] {
    ScaleCall call;
    EXPECT_EQ(call.call("elsewhere"), MIXPREC_NOT_FOUND);
    otherMessage = mixprec_last_error();
  });
  other.join();
  EXPECT_NE(otherMessage.find("'elsewhere'"), std::string::npos)
      << otherMessage;
  EXPECT_EQ(std::string(mixprec_last_error()), message);
}

//===----------------------------------------------------------------------===//
// Functions that fail to run
//===----------------------------------------------------------------------===//

/// The trainer's step count, read through the ABI.
int64_t stepCount(const mixprec_trainer *trainer) {
  int64_t count = -1;
  EXPECT_EQ(mixprec_trainer_step_count(trainer, &count), MIXPREC_OK)
      << mixprec_last_error();
  return count;
}

/// The trainer's copy of `name`, as bytes.
template <size_t Bytes>
void get(const mixprec_trainer *trainer, const char *name,
         const mixprec_tensor_spec &spec, unsigned char (&bytes)[Bytes]) {
  mixprec_tensor tensor = {bytes, spec.dtype, spec.rank, spec.shape};
  ASSERT_EQ(mixprec_trainer_get(trainer, name, &tensor), MIXPREC_OK)
      << mixprec_last_error();
}

TEST(ModelRuntimeFailure, AFailingStepLeavesTheTrainerAsItWas) {
  mixprec_trainer *trainer = nullptr;
  ASSERT_EQ(mixprec_trainer_create("train", 7, &trainer), MIXPREC_OK)
      << mixprec_last_error();
  float x[2] = {1.0f, 2.0f};
  mixprec_tensor batch[] = {{x, MIXPREC_F32, 1, kVector2Shape}};
  float loss = 0.0f;
  ASSERT_EQ(mixprec_trainer_step(trainer, batch, 1, 0.5f, &loss), MIXPREC_OK)
      << mixprec_last_error();
  const mixprec_tensor_spec rngSpec = kTrainInputs[2];
  unsigned char w[8], count[8], rng[16];
  get(trainer, "w", kWeights, w);
  get(trainer, "train.step_count", kStepCount, count);
  get(trainer, "rng_state", rngSpec, rng);

  trainFails = true;
  float failedLoss = -1.0f;
  EXPECT_EQ(mixprec_trainer_step(trainer, batch, 1, 0.5f, &failedLoss),
            MIXPREC_DEVICE_ERROR);
  trainFails = false;
  EXPECT_STREQ(mixprec_last_error(), "running kernel 'train_0': fake fault");
  EXPECT_EQ(failedLoss, -1.0f);
  unsigned char wAfter[8], countAfter[8], rngAfter[16];
  get(trainer, "w", kWeights, wAfter);
  get(trainer, "train.step_count", kStepCount, countAfter);
  get(trainer, "rng_state", rngSpec, rngAfter);
  EXPECT_EQ(std::memcmp(w, wAfter, sizeof(w)), 0);
  EXPECT_EQ(std::memcmp(count, countAfter, sizeof(count)), 0);
  EXPECT_EQ(std::memcmp(rng, rngAfter, sizeof(rng)), 0);
  EXPECT_EQ(stepCount(trainer), 1);

  // The next step starts from the state before the failed one.
  ASSERT_EQ(mixprec_trainer_step(trainer, batch, 1, 0.5f, &loss), MIXPREC_OK)
      << mixprec_last_error();
  float weights[2];
  get(trainer, "w", kWeights, wAfter);
  std::memcpy(weights, wAfter, sizeof(weights));
  EXPECT_EQ(weights[0], -0.5f);
  EXPECT_EQ(weights[1], -1.5f);
  EXPECT_EQ(stepCount(trainer), 2);
  mixprec_trainer_destroy(trainer);
}

/// A trainer of the train step, created before each test and destroyed
/// after it.
class WithTrainer : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(mixprec_trainer_create("train", 7, &trainer), MIXPREC_OK)
        << mixprec_last_error();
  }
  void TearDown() override { mixprec_trainer_destroy(trainer); }

  mixprec_trainer *trainer = nullptr;
};
using ModelRuntimeTrainerErrors = WithTrainer;
using ModelRuntimeTrainerScalars = WithTrainer;

TEST_F(ModelRuntimeTrainerErrors, StateAndBatchErrorsShowBothTypes) {
  float x[3] = {};
  int64_t longShape[3] = {3, 1, 1};
  mixprec_tensor wrong[] = {{x, MIXPREC_F16, 3, longShape}};
  float loss = 0.0f;
  EXPECT_EQ(mixprec_trainer_step(trainer, wrong, 0, 0.5f, &loss),
            MIXPREC_INVALID_ARGUMENT);
  EXPECT_STREQ(mixprec_last_error(),
               "train: expects 1 batch tensors (x: f32[2]), got 0");
  EXPECT_EQ(mixprec_trainer_step(trainer, wrong, 1, 0.5f, &loss),
            MIXPREC_INVALID_ARGUMENT);
  EXPECT_STREQ(mixprec_last_error(),
               "train: input 3 ('x') must be f32[2], got f16[3, 1, 1]");
  EXPECT_EQ(mixprec_trainer_set(trainer, "w", wrong), MIXPREC_INVALID_ARGUMENT);
  EXPECT_STREQ(mixprec_last_error(),
               "value ('w') must be f32[2], got f16[3, 1, 1]");
  EXPECT_EQ(stepCount(trainer), 0);
}

TEST_F(ModelRuntimeTrainerScalars, AStepWithoutLossScalingHasTheDefaults) {
  float scale = -1.0f;
  int32_t skipped = -1;
  int64_t skippedSteps = -1;
  const char *nonfinite = "unchanged";
  EXPECT_EQ(mixprec_trainer_loss_scale(trainer, &scale), MIXPREC_OK);
  EXPECT_EQ(scale, 1.0f);
  EXPECT_EQ(mixprec_trainer_skipped(trainer, &skipped), MIXPREC_OK);
  EXPECT_EQ(skipped, 0);
  EXPECT_EQ(mixprec_trainer_skipped_steps(trainer, &skippedSteps), MIXPREC_OK);
  EXPECT_EQ(skippedSteps, 0);
  EXPECT_EQ(mixprec_trainer_nonfinite_parameter(trainer, 0, &nonfinite),
            MIXPREC_OK);
  EXPECT_EQ(nonfinite, nullptr);
  EXPECT_EQ(stepCount(trainer), 0);
}

TEST_F(ModelRuntimeTrainerScalars, NoTrainerOrNoPlaceIsAnInvalidArgument) {
  int64_t count = -1;
  float scale = -1.0f;
  int32_t skipped = -1;
  const char *name = "unchanged";
  EXPECT_EQ(mixprec_trainer_step_count(nullptr, &count),
            MIXPREC_INVALID_ARGUMENT);
  EXPECT_STREQ(mixprec_last_error(), "mixprec_trainer_step_count: no trainer");
  EXPECT_EQ(mixprec_trainer_step_count(trainer, nullptr),
            MIXPREC_INVALID_ARGUMENT);
  EXPECT_STREQ(mixprec_last_error(),
               "mixprec_trainer_step_count: no place for the value");
  EXPECT_EQ(mixprec_trainer_loss_scale(nullptr, &scale),
            MIXPREC_INVALID_ARGUMENT);
  EXPECT_STREQ(mixprec_last_error(), "mixprec_trainer_loss_scale: no trainer");
  EXPECT_EQ(mixprec_trainer_skipped(trainer, nullptr),
            MIXPREC_INVALID_ARGUMENT);
  EXPECT_EQ(mixprec_trainer_skipped_steps(nullptr, &count),
            MIXPREC_INVALID_ARGUMENT);
  EXPECT_EQ(mixprec_trainer_nonfinite_parameter(nullptr, 0, &name),
            MIXPREC_INVALID_ARGUMENT);
  EXPECT_EQ(mixprec_trainer_nonfinite_parameter(trainer, 0, nullptr),
            MIXPREC_INVALID_ARGUMENT);
  EXPECT_EQ(count, -1);
  EXPECT_EQ(scale, -1.0f);
  EXPECT_EQ(skipped, -1);
  EXPECT_STREQ(name, "unchanged");
}

TEST_F(ModelRuntimeTrainerErrors, LearningRateMustBeFiniteAndNotNegative) {
  float x[2] = {1.0f, 2.0f};
  mixprec_tensor batch[] = {{x, MIXPREC_F32, 1, kVector2Shape}};
  struct Case {
    float lr;
    const char *shown;
  };
  for (Case bad : {Case{-0.5f, "-0.5"}, Case{NAN, "nan"}, Case{INFINITY, "inf"},
                   Case{-INFINITY, "-inf"}}) {
    float loss = -1.0f;
    EXPECT_EQ(mixprec_trainer_step(trainer, batch, 1, bad.lr, &loss),
              MIXPREC_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(mixprec_last_error()),
              std::string("train: the learning rate must be finite and >= 0, "
                          "got ") +
                  bad.shown);
    EXPECT_EQ(loss, -1.0f);
  }
  EXPECT_EQ(stepCount(trainer), 0);
  float loss = 0.0f;
  EXPECT_EQ(mixprec_trainer_step(trainer, batch, 1, 0.0f, &loss), MIXPREC_OK)
      << mixprec_last_error();
  EXPECT_EQ(stepCount(trainer), 1);
}

TEST_F(ModelRuntimeTrainerErrors, HugeRanksAreShownCut) {
  int64_t shape[40];
  for (int64_t &size : shape)
    size = 1;
  float x[1] = {};
  mixprec_tensor deep = {x, MIXPREC_F32, 40, shape};
  EXPECT_EQ(mixprec_trainer_set(trainer, "w", &deep), MIXPREC_INVALID_ARGUMENT);
  std::string message = mixprec_last_error();
  EXPECT_NE(message.find("got f32[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
                         "1, 1, ... (rank 40)]"),
            std::string::npos)
      << message;
}

TEST(ModelRuntimeFailure, CallReturnsTheFunctionsStatus) {
  float w[2] = {}, x[2] = {}, lr = 1.0f, loss = 0.0f, updated[2];
  int64_t count = 0, rng[2] = {}, newCount = 0;
  mixprec_tensor inputs[] = {{w, MIXPREC_F32, 1, kVector2Shape},
                             {&count, MIXPREC_I64, 0, nullptr},
                             {rng, MIXPREC_I64, 1, kRngShape},
                             {x, MIXPREC_F32, 1, kVector2Shape},
                             {&lr, MIXPREC_F32, 0, nullptr}};
  mixprec_tensor outputs[] = {{&loss, MIXPREC_F32, 0, nullptr},
                              {updated, MIXPREC_F32, 1, kVector2Shape},
                              {&newCount, MIXPREC_I64, 0, nullptr}};
  trainFails = true;
  EXPECT_EQ(mixprec_call("train", inputs, 5, outputs, 3), MIXPREC_DEVICE_ERROR);
  trainFails = false;
  EXPECT_STREQ(mixprec_last_error(), "running kernel 'train_0': fake fault");
  EXPECT_EQ(mixprec_call("train", inputs, 5, outputs, 3), MIXPREC_OK);
  EXPECT_EQ(newCount, 1);
}

TEST(ModelRuntimeFailure, ACpuModelHasNoDeviceMemory) {
  int64_t current = -1, peak = -1;
  EXPECT_EQ(mixprec_device_memory(&current, &peak), MIXPREC_UNAVAILABLE);
  EXPECT_STREQ(mixprec_last_error(),
               "this model runs on the CPU: it holds no device memory");
  EXPECT_EQ(current, -1);
  EXPECT_EQ(peak, -1);
}

//===----------------------------------------------------------------------===//
// Dtypes
//===----------------------------------------------------------------------===//

TEST(ModelRuntimeDtype, SizeAndName) {
  struct Expected {
    mixprec_dtype dtype;
    size_t size;
    const char *name;
  };
  for (const Expected &expected :
       {Expected{MIXPREC_F32, 4, "f32"}, Expected{MIXPREC_F16, 2, "f16"},
        Expected{MIXPREC_BF16, 2, "bf16"}, Expected{MIXPREC_I32, 4, "i32"},
        Expected{MIXPREC_I64, 8, "i64"}, Expected{MIXPREC_BOOL, 1, "bool"}}) {
    size_t size = 0;
    const char *name = nullptr;
    EXPECT_EQ(mixprec_dtype_size(expected.dtype, &size), MIXPREC_OK);
    EXPECT_EQ(size, expected.size) << expected.name;
    EXPECT_EQ(mixprec_dtype_name(expected.dtype, &name), MIXPREC_OK);
    EXPECT_STREQ(name, expected.name);
  }
  for (int unknown : {-1, 6, 1000}) {
    size_t size = 77;
    const char *name = "unchanged";
    EXPECT_EQ(mixprec_dtype_size(mixprec_dtype(unknown), &size),
              MIXPREC_INVALID_ARGUMENT)
        << unknown;
    EXPECT_EQ(std::string(mixprec_last_error()),
              "no dtype " + std::to_string(unknown));
    EXPECT_EQ(mixprec_dtype_name(mixprec_dtype(unknown), &name),
              MIXPREC_INVALID_ARGUMENT)
        << unknown;
    EXPECT_EQ(size, 77u);
    EXPECT_STREQ(name, "unchanged");
  }
}

TEST(ModelRuntimeDtype, EnumValuesAreTheABI) {
  // Compiled models and the Python package hard-code these numbers.
  EXPECT_EQ(MIXPREC_F32, 0);
  EXPECT_EQ(MIXPREC_F16, 1);
  EXPECT_EQ(MIXPREC_BF16, 2);
  EXPECT_EQ(MIXPREC_I32, 3);
  EXPECT_EQ(MIXPREC_I64, 4);
  EXPECT_EQ(MIXPREC_BOOL, 5);
  EXPECT_EQ(MIXPREC_OK, 0);
  EXPECT_EQ(MIXPREC_INVALID_ARGUMENT, 1);
  EXPECT_EQ(MIXPREC_NOT_FOUND, 2);
  EXPECT_EQ(MIXPREC_INTERNAL, 3);
}

} // namespace
