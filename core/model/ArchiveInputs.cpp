// model.json's `example_inputs` and `lowering` (fx-archive.md "Input specs and lowering hints"):
// a dense input given by an example tensor's dtype and shape becomes its MLIR type with a
// dynamic leading dimension; absent lowering keys take the spec's defaults. Whether the
// hints fit the model's signature is left to the lowering, which knows the ABI.
#include "model/ArchiveJson.h"

namespace lattice::archive {

namespace {

bool isOneOf(const std::string& value, std::initializer_list<const char*> allowed) {
  for (const char* a : allowed)
    if (value == a) return true;
  return false;
}

std::string choice(const OJson& json, const std::string& where, std::initializer_list<const char*> allowed) {
  const std::string value = expectString(json, where);
  if (!isOneOf(value, allowed)) {
    std::string list;
    for (const char* a : allowed) list += (list.empty() ? "'" : ", '") + std::string(a) + "'";
    fail(where, "expected one of " + list + ", got '" + value + "'");
  }
  return value;
}

/// `channels`: absent or null → none; else a non-negative integer.
std::optional<int64_t> channelsOf(const OJson& spec, const std::string& where) {
  const OJson* channels = optional(spec, "channels");
  if (!channels || channels->is_null()) return std::nullopt;
  const int64_t value = expectInt(*channels, member(where, "channels"));
  if (value < 0) fail(member(where, "channels"), "expected a non-negative channel count, got " + std::to_string(value));
  return value;
}

/// "tensor<?x3xf32>" → "f32"; empty when the element type is not a plain token.
std::string elementTypeOf(const std::string& type) {
  if (type.rfind("tensor<", 0) != 0 || type.back() != '>') return {};
  const std::string body = type.substr(7, type.size() - 8);
  const std::size_t x = body.rfind('x');
  return x == std::string::npos ? body : body.substr(x + 1);
}

InputSpec parseSparse(const OJson& spec, const std::string& where, InputSpec input) {
  input.kind = InputSpec::Kind::Sparse;
  const OJson* dtype = optional(spec, "dtype");
  input.dtype = dtype && !dtype->is_null() ? choice(*dtype, member(where, "dtype"), {"f32", "f16"}) : "f32";
  input.channels = channelsOf(spec, where);
  if (const OJson* stride = optional(spec, "stride"); stride && !stride->is_null()) {
    const std::string at = member(where, "stride");
    expectArray(*stride, at);
    if (stride->size() != 3) fail(at, "expected 3 values, got " + std::to_string(stride->size()));
    for (std::size_t i = 0; i < 3; ++i) {
      input.stride[i] = expectInt((*stride)[i], element(at, i));
      if (input.stride[i] < 1) fail(element(at, i), "expected a positive stride, got " + std::to_string(input.stride[i]));
    }
  }
  return input;
}

InputSpec parseDense(const OJson& spec, const std::string& where, InputSpec input) {
  input.kind = InputSpec::Kind::Dense;
  if (const OJson* type = optional(spec, "type"); type && !type->is_null()) {
    input.type = expectString(*type, member(where, "type"));
    if (input.type.empty()) fail(member(where, "type"), "expected an MLIR tensor type, got ''");
    input.dtype = elementTypeOf(input.type);
    input.channels = channelsOf(spec, where);
    return input;
  }
  const OJson* dtype = optional(spec, "dtype");
  const OJson* shape = optional(spec, "shape");
  if (!dtype || !shape) fail(where, "a dense input needs 'type', or 'dtype' and 'shape'");
  input.dtype = choice(*dtype, member(where, "dtype"), {"f32", "f16", "i32", "i64"});
  const std::string at = member(where, "shape");
  expectArray(*shape, at);
  std::vector<int64_t> dims;
  for (std::size_t i = 0; i < shape->size(); ++i) {
    dims.push_back(expectInt((*shape)[i], element(at, i)));
    if (dims.back() < 0) fail(element(at, i), "negative dimension " + std::to_string(dims.back()));
  }
  // The leading (batch/row) dimension becomes dynamic.
  input.type = "tensor<";
  for (std::size_t i = 0; i < dims.size(); ++i) input.type += (i == 0 ? std::string("?") : std::to_string(dims[i])) + "x";
  input.type += input.dtype + ">";
  input.channels = channelsOf(spec, where);
  if (!input.channels && dims.size() == 2) input.channels = dims[1];
  return input;
}

} // namespace

std::vector<InputSpec> parseExampleInputs(const OJson& json, const std::string& where) {
  expectArray(json, where);
  std::vector<InputSpec> inputs;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const std::string at = element(where, i);
    expectObject(json[i], at);
    InputSpec input;
    input.name = expectString(require(json[i], "name", at), member(at, "name"));
    if (input.name.empty()) fail(member(at, "name"), "expected a non-empty name");
    const std::string kind = choice(require(json[i], "kind", at), member(at, "kind"), {"sparse", "dense"});
    inputs.push_back(kind == "sparse" ? parseSparse(json[i], at, std::move(input))
                                      : parseDense(json[i], at, std::move(input)));
  }
  return inputs;
}

LoweringOptions parseLowering(const OJson& json, const std::string& where) {
  expectObject(json, where);
  LoweringOptions options;
  auto present = [&](const char* key) -> const OJson* {
    const OJson* value = optional(json, key);
    return value && !value->is_null() ? value : nullptr;
  };
  if (const OJson* v = present("batch_size")) {
    options.batchSize = expectInt(*v, member(where, "batch_size"));
    if (*options.batchSize < 1)
      fail(member(where, "batch_size"), "expected a positive batch size, got " + std::to_string(*options.batchSize));
  }
  if (const OJson* v = present("input_dtype")) options.inputDtype = choice(*v, member(where, "input_dtype"), {"f32", "f16"});
  if (const OJson* v = present("quantize_bits")) {
    const int64_t bits = expectInt(*v, member(where, "quantize_bits"));
    if (bits != 4 && bits != 8) fail(member(where, "quantize_bits"), "expected 4 or 8, got " + std::to_string(bits));
    options.quantizeBits = static_cast<int>(bits);
  }
  if (const OJson* v = present("quantize_group_size")) {
    const int64_t size = expectInt(*v, member(where, "quantize_group_size"));
    if (size < 1 || size > INT32_MAX)
      fail(member(where, "quantize_group_size"), "expected a positive group size, got " + std::to_string(size));
    options.quantizeGroupSize = static_cast<int>(size);
  }
  if (const OJson* v = present("quantize_scale_dtype"))
    options.quantizeScaleDtype = choice(*v, member(where, "quantize_scale_dtype"), {"f16", "f32"});
  if (const OJson* v = present("output_names")) {
    const std::string at = member(where, "output_names");
    expectArray(*v, at);
    std::vector<std::string> names;
    for (std::size_t i = 0; i < v->size(); ++i) names.push_back(expectString((*v)[i], element(at, i)));
    options.outputNames = std::move(names);
  }
  return options;
}

} // namespace lattice::archive
