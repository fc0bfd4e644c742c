// The `.ltfx` writer: Model → model.json (keys in the order fx-archive.md lists them, 2-space
// indented) and weights.safetensors. Values are encoded by fx's JSON encoding; since that
// yields nlohmann::json (sorted objects), dict items and kwargs are re-emitted in the model's
// own order. The writer does not validate graphs (they were built or read through fx::Graph);
// it does check that every tensor record names a model tensor of the recorded dtype and shape.
#include "model/Archive.h"

#include "fx/JsonEncoding.h"
#include "tensor/Safetensors.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace lattice {

namespace {

using OJson = nlohmann::ordered_json;

/// `json` (fx's encoding of `value`) with dict items in the value's order.
OJson toOrdered(const nlohmann::json& json, const fx::Value& value) {
  switch (value.kind()) {
  case fx::Value::Kind::List:
  case fx::Value::Kind::Tuple:
  case fx::Value::Kind::Slice: {
    const char* key = value.kind() == fx::Value::Kind::Tuple ? "tuple" : "slice";
    const bool isList = value.kind() == fx::Value::Kind::List;
    const nlohmann::json* items = isList ? &json : nullptr;
    if (!isList && json.is_object() && json.contains(key)) items = &json[key];
    if (!items || !items->is_array() || items->size() != value.items().size()) return OJson(json);
    OJson out = OJson::array();
    for (std::size_t i = 0; i < value.items().size(); ++i) out.push_back(toOrdered((*items)[i], value.items()[i]));
    return isList ? out : OJson{{key, std::move(out)}};
  }
  case fx::Value::Kind::Dict: {
    if (!json.is_object() || !json.contains("dict") || !json["dict"].is_object()) return OJson(json);
    const nlohmann::json& items = json["dict"];
    OJson out = OJson::object();
    for (const auto& [k, v] : value.dictItems()) {
      auto it = items.find(k);
      if (it == items.end()) return OJson(json);
      out[k] = toOrdered(*it, v);
    }
    return OJson{{"dict", std::move(out)}};
  }
  default: return OJson(json);
  }
}

OJson encodeValue(const fx::Value& value) { return toOrdered(fx::valueToJson(value), value); }

OJson encodeGraph(const fx::Graph& graph) {
  OJson nodes = OJson::array();
  for (const fx::Node& node : graph.nodes()) {
    OJson record = OJson::object();
    record["name"] = node.name();
    record["op"] = std::string(fx::opName(node.op()));
    record["target"] = node.target();
    OJson args = OJson::array();
    for (const fx::Value& arg : node.args()) args.push_back(encodeValue(arg));
    record["args"] = std::move(args);
    OJson kwargs = OJson::object();
    for (const auto& [key, value] : node.kwargs()) kwargs[key] = encodeValue(value);
    record["kwargs"] = std::move(kwargs);
    nodes.push_back(std::move(record));
  }
  return OJson{{"nodes", std::move(nodes)}};
}

const char* kindName(ParamKind kind) {
  switch (kind) {
  case ParamKind::PositionalOnly: return "positional_only";
  case ParamKind::PositionalOrKeyword: return "positional_or_keyword";
  case ParamKind::VarPositional: return "var_positional";
  case ParamKind::KeywordOnly: return "keyword_only";
  case ParamKind::VarKeyword: return "var_keyword";
  }
  return "positional_or_keyword";
}

using TensorSlots = std::vector<std::pair<std::string, std::optional<TensorRecord>>>;

OJson encodeSlots(const TensorSlots& slots) {
  OJson out = OJson::object();
  for (const auto& [name, record] : slots) {
    if (!record) {
      out[name] = nullptr;
      continue;
    }
    OJson r = OJson::object();
    r["key"] = record->key;
    r["dtype"] = std::string(dtypeName(record->dtype));
    r["shape"] = record->shape;
    out[name] = std::move(r);
  }
  return out;
}

OJson encodeModule(const ModuleInfo& m) {
  OJson out = OJson::object();
  out["path"] = m.path;
  out["type"] = m.type;
  out["bases"] = m.bases;
  out["training"] = m.training;
  OJson attributes = OJson::object();
  for (const auto& [name, value] : m.attributes) attributes[name] = encodeValue(value);
  out["attributes"] = std::move(attributes);
  out["parameters"] = encodeSlots(m.parameters);
  out["buffers"] = encodeSlots(m.buffers);
  out["children"] = m.children;
  OJson signature = OJson::array();
  for (const SignatureParam& p : m.signature) {
    OJson param = OJson::object();
    param["name"] = p.name;
    param["kind"] = kindName(p.kind);
    if (p.defaultValue) param["default"] = encodeValue(*p.defaultValue);
    signature.push_back(std::move(param));
  }
  out["signature"] = std::move(signature);
  if (m.graph) out["graph"] = encodeGraph(*m.graph);
  return out;
}

OJson encodeInput(const InputSpec& input) {
  OJson out = OJson::object();
  out["name"] = input.name;
  const OJson channels = input.channels ? OJson(*input.channels) : OJson(nullptr);
  if (input.kind == InputSpec::Kind::Sparse) {
    out["kind"] = "sparse";
    out["dtype"] = input.dtype.empty() ? std::string("f32") : input.dtype;
    out["channels"] = channels;
    out["stride"] = input.stride;
  } else {
    out["kind"] = "dense";
    out["type"] = input.type;
    out["channels"] = channels;
  }
  return out;
}

OJson encodeLowering(const LoweringOptions& options) {
  OJson out = OJson::object();
  out["batch_size"] = options.batchSize ? OJson(*options.batchSize) : OJson(nullptr);
  out["input_dtype"] = options.inputDtype ? OJson(*options.inputDtype) : OJson(nullptr);
  out["quantize_bits"] = options.quantizeBits ? OJson(*options.quantizeBits) : OJson(nullptr);
  out["quantize_group_size"] = options.quantizeGroupSize;
  out["quantize_scale_dtype"] = options.quantizeScaleDtype;
  out["output_names"] = options.outputNames ? OJson(*options.outputNames) : OJson(nullptr);
  return out;
}

OJson encodeDocument(const Model& model) {
  OJson doc = OJson::object();
  doc["format"] = "lattice-fx-archive";
  doc["version"] = kArchiveVersion;
  if (!model.producerName.empty() || !model.producerVersion.empty())
    doc["producer"] = OJson{{"name", model.producerName}, {"version", model.producerVersion}};
  OJson modules = OJson::array();
  for (const ModuleInfo& m : model.modules()) modules.push_back(encodeModule(m));
  doc["modules"] = std::move(modules);
  OJson inputs = OJson::array();
  for (const InputSpec& input : model.exampleInputs) inputs.push_back(encodeInput(input));
  doc["example_inputs"] = std::move(inputs);
  if (model.lowering) doc["lowering"] = encodeLowering(*model.lowering);
  return doc;
}

/// Every tensor record must be backed by a model tensor that agrees with it.
Status checkRecords(const Model& model) {
  for (const ModuleInfo& m : model.modules()) {
    for (const auto* slots : {&m.parameters, &m.buffers}) {
      const char* what = slots == &m.parameters ? "parameter" : "buffer";
      for (const auto& [name, record] : *slots) {
        if (!record) continue;
        const std::string context = "module '" + m.path + "' " + what + " '" + name + "': tensor '" + record->key + "'";
        const TensorData* tensor = model.tensor(record->key);
        if (!tensor) return makeError(context + " is not among the model's weights");
        if (tensor->dtype() != record->dtype || tensor->shape() != record->shape)
          return makeError(context + " does not match its record (dtype or shape)");
      }
    }
  }
  return {};
}

Status writeTextFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return makeError(path.string() + ": cannot write the file");
  return {};
}

/// Moves `temporary` over `final`; removes the temporary on failure.
Status replaceFile(const std::filesystem::path& temporary, const std::filesystem::path& final) {
  std::error_code ec;
  std::filesystem::rename(temporary, final, ec);
  if (!ec) return {};
  std::filesystem::remove(temporary, ec);
  return makeError(final.string() + ": cannot replace the file: " + ec.message());
}

} // namespace

Status writeArchive(const Model& model, const std::string& dir) {
  namespace fs = std::filesystem;
  if (model.modules().empty()) return makeError(dir + ": cannot write an empty model");
  if (Status ok = checkRecords(model); !ok) return makeError(dir + ": " + ok.message());

  std::string text;
  try {
    text = encodeDocument(model).dump(2) + "\n";
  } catch (const nlohmann::json::exception& e) {
    // dump() throws on strings that are not valid UTF-8.
    return makeError(dir + ": cannot encode model.json: " + std::string(e.what()));
  }
  if (text.size() > kMaxArchiveJsonBytes)
    return makeError(dir + ": not written: model.json would be " + std::to_string(text.size()) +
                     " bytes, over the reader's limit of " + std::to_string(kMaxArchiveJsonBytes) + " bytes");

  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir, ec)) return makeError(dir + ": cannot create the archive directory");

  const fs::path jsonPath = fs::path(dir) / "model.json";
  const fs::path jsonTemp = fs::path(dir) / "model.json.tmp";
  if (Status ok = writeTextFile(jsonTemp, text); !ok) {
    fs::remove(jsonTemp, ec);
    return ok;
  }

  std::vector<NamedTensor> tensors;
  tensors.reserve(model.tensors().size());
  for (const auto& [key, tensor] : model.tensors()) tensors.push_back(NamedTensor{key, tensor});
  const fs::path weightsPath = fs::path(dir) / "weights.safetensors";
  const fs::path weightsTemp = fs::path(dir) / "weights.safetensors.tmp";
  if (Status ok = writeSafetensors(weightsTemp.string(), tensors, torchWeightsMetadata()); !ok) {
    fs::remove(weightsTemp, ec);
    fs::remove(jsonTemp, ec);
    return ok;
  }
  if (Status ok = replaceFile(weightsTemp, weightsPath); !ok) {
    fs::remove(jsonTemp, ec);
    return ok;
  }
  return replaceFile(jsonTemp, jsonPath);
}

} // namespace lattice
