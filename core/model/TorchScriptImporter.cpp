// TorchScript archives and torch.save'd tensors through LibTorch: the module tree (types,
// attributes, weights, signatures) and the entry points. The forward graphs are converted in
// TorchScriptGraph.cpp; a torch.save'd pickle is read by TorchPickle.cpp from the zip records
// LibTorch's PyTorchStreamReader hands out. Deliberately not supported: the legacy (pre-1.6,
// non-zip) torch.save format, and anything the graph converter refuses. LibTorch exceptions
// stop here.
#include "model/TorchScriptImporter.h"

#include "model/TorchPickle.h"
#include "model/TorchScriptGraph.h"

#include <torch/script.h>
#include <caffe2/serialize/inline_container.h>

#include <fstream>

namespace lattice {

namespace jit = torch::jit;

namespace {

constexpr const char* kModuleType = "torch.nn.modules.module.Module";
constexpr const char* kSequentialType = "torch.nn.modules.container.Sequential";

std::optional<DType> dtypeOf(c10::ScalarType type) {
  switch (type) {
  case c10::ScalarType::Bool: return DType::Bool;
  case c10::ScalarType::Byte: return DType::U8;
  case c10::ScalarType::Char: return DType::I8;
  case c10::ScalarType::Short: return DType::I16;
  case c10::ScalarType::Half: return DType::F16;
  case c10::ScalarType::BFloat16: return DType::BF16;
  case c10::ScalarType::Int: return DType::I32;
  case c10::ScalarType::Float: return DType::F32;
  case c10::ScalarType::Double: return DType::F64;
  case c10::ScalarType::Long: return DType::I64;
  default: return std::nullopt;
  }
}

/// A CPU, contiguous view of `tensor` that keeps the LibTorch tensor alive. Throws Exception.
TensorData toTensorData(const at::Tensor& tensor, const std::string& file, const std::string& key) {
  const auto dtype = dtypeOf(tensor.scalar_type());
  if (!dtype)
    throw Exception{file + ": tensor '" + key + "': unsupported dtype " +
                    c10::toString(tensor.scalar_type())};
  auto held = std::make_shared<at::Tensor>(tensor.detach().to(at::kCPU).contiguous());
  std::vector<int64_t> shape = held->sizes().vec();
  if (held->nbytes() == 0) return TensorData::zeros(*dtype, std::move(shape));
  const auto* data = static_cast<const uint8_t*>(held->data_ptr());
  return TensorData::view(*dtype, std::move(shape), data, held->nbytes(), held);
}

/// torch.fx's leaf rule on a cleaned type: library modules are not given a graph.
bool isLibraryLeaf(const std::string& type) {
  const bool library = type.rfind("torch.nn.", 0) == 0 || type.rfind("torch.ao.nn.", 0) == 0;
  return library && type != kSequentialType;
}

class TreeBuilder {
public:
  explicit TreeBuilder(std::string file) : m_file(std::move(file)) {}

  Model build(const jit::Module& root) {
    m_model.source = m_file;
    m_model.producerName = "torchscript";
    addModule(root, "");
    return std::move(m_model);
  }

private:
  void addModule(const jit::Module& module, const std::string& path) {
    const c10::ClassTypePtr& type = module.type();
    ModuleInfo info;
    info.path = path;
    info.type = cleanTorchScriptTypeName(type->name() ? type->name()->qualifiedName() : type->str());
    if (info.type != kModuleType) info.bases = {kModuleType};
    info.training = module.is_training();

    std::vector<std::pair<std::string, jit::Module>> children;
    for (std::size_t slot = 0; slot < type->numAttributes(); ++slot) {
      const std::string name = type->getAttributeName(slot);
      const c10::IValue value = module._ivalue()->getSlot(slot);
      if (type->getAttribute(slot)->is_module()) {
        info.children.push_back(name);
        children.emplace_back(name, jit::Module(value.toObject()));
      } else if (type->is_parameter(slot)) {
        info.parameters.emplace_back(name, record(info, name, value));
      } else if (type->is_buffer(slot)) {
        info.buffers.emplace_back(name, record(info, name, value));
      } else if (name != "training" && name.rfind('_', 0) != 0) {
        if (auto literal = torchScriptLiteral(value)) info.attributes.emplace_back(name, std::move(*literal));
      }
    }
    for (std::size_t slot = 0; slot < type->numConstants(); ++slot) {
      const std::string& name = type->getConstantName(slot);
      if (name.rfind('_', 0) == 0 || info.attribute(name)) continue;
      if (auto literal = torchScriptLiteral(type->getConstant(slot)))
        info.attributes.emplace_back(name, std::move(*literal));
    }

    if (auto forward = module.find_method("forward")) {
      info.signature = torchScriptSignature(forward->function().getSchema());
      if (!isLibraryLeaf(info.type))
        info.graph = convertTorchScriptForward(module, *forward, path, info.type, m_file);
    }

    m_model.addModule(std::move(info));
    for (const auto& [name, child] : children) addModule(child, path.empty() ? name : path + "." + name);
  }

  std::optional<TensorRecord> record(const ModuleInfo& owner, const std::string& name,
                                     const c10::IValue& value) {
    if (value.isNone()) return std::nullopt;
    const std::string key = owner.childPath(name);
    if (!value.isTensor())
      throw Exception{m_file + ": '" + key + "' is registered as a tensor but holds " + value.tagKind()};
    TensorData tensor = toTensorData(value.toTensor(), m_file, key);
    TensorRecord rec{key, tensor.dtype(), tensor.shape()};
    m_model.setTensor(key, std::move(tensor));
    return rec;
  }

  std::string m_file;
  Model m_model;
};

std::string firstLine(const char* text) {
  std::string line(text);
  line = line.substr(0, line.find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
  return line;
}

/// Runs `fn`, turning every exception into an Error naming `file`.
template <typename T, typename Fn>
Expected<T> guarded(const std::string& file, Fn&& fn) {
  try {
    return fn();
  } catch (const Exception& e) {
    return makeError(e.message);
  } catch (const c10::Error& e) {
    return makeError(file + ": " + firstLine(e.what_without_backtrace()));
  } catch (const std::exception& e) {
    return makeError(file + ": " + firstLine(e.what()));
  }
}

bool hasCode(caffe2::serialize::PyTorchStreamReader& reader) {
  for (const std::string& name : reader.getAllRecords())
    if (name.rfind("code/", 0) == 0) return true;
  return false;
}

/// Refuses files LibTorch would misreport: missing, not a zip (with a hint for the legacy
/// torch.save format). Throws Exception.
void checkZip(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Exception{path + ": cannot open file"};
  char magic[4] = {};
  in.read(magic, 4);
  if (in.gcount() == 4 && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4) return;
  if (in.gcount() >= 1 && static_cast<unsigned char>(magic[0]) == 0x80)
    throw Exception{path + ": legacy torch.save format (a bare pickle) is not supported; re-save it with "
                           "torch.save from PyTorch 1.6 or later (zip format)"};
  throw Exception{path + ": not a PyTorch archive (not a zip file)"};
}

} // namespace

std::string cleanTorchScriptTypeName(const std::string& qualified) {
  std::string out;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = qualified.find('.', start);
    const std::string part =
        qualified.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const bool drop = (start == 0 && part == "__torch__") || part.rfind("___torch_mangle_", 0) == 0;
    if (!drop) out += (out.empty() ? "" : ".") + part;
    if (dot == std::string::npos) return out;
    start = dot + 1;
  }
}

std::optional<fx::Value> torchScriptLiteral(const c10::IValue& value) {
  if (value.isNone()) return fx::Value::none();
  if (value.isBool()) return fx::Value::boolean(value.toBool());
  if (value.isInt()) return fx::Value::integer(value.toInt());
  if (value.isDouble()) return fx::Value::floating(value.toDouble());
  if (value.isString()) return fx::Value::string(value.toStringRef());
  if (value.isDevice()) return fx::Value::device(value.toDevice().str());
  if (value.isTuple() || value.isList()) {
    fx::ValueList items;
    auto convert = [&](const c10::IValue& item) {
      auto v = torchScriptLiteral(item);
      if (v) items.push_back(std::move(*v));
      return v.has_value();
    };
    if (value.isTuple()) {
      for (const c10::IValue& item : value.toTupleRef().elements())
        if (!convert(item)) return std::nullopt;
      return fx::Value::tuple(std::move(items));
    }
    for (const c10::IValue& item : value.toListRef())
      if (!convert(item)) return std::nullopt;
    return fx::Value::list(std::move(items));
  }
  return std::nullopt;
}

std::vector<SignatureParam> torchScriptSignature(const c10::FunctionSchema& schema) {
  std::vector<SignatureParam> params;
  const auto& args = schema.arguments();
  for (std::size_t i = 1; i < args.size(); ++i) { // 0 is self
    SignatureParam p;
    p.name = args[i].name();
    p.kind = args[i].kwarg_only() ? ParamKind::KeywordOnly : ParamKind::PositionalOrKeyword;
    if (args[i].default_value()) p.defaultValue = torchScriptLiteral(*args[i].default_value());
    params.push_back(std::move(p));
  }
  return params;
}

bool isZipFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in.gcount() == 4 && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4;
}

Expected<Model> importTorchScript(const std::string& path) {
  return guarded<Model>(path, [&]() -> Expected<Model> {
    checkZip(path);
    {
      caffe2::serialize::PyTorchStreamReader reader(path);
      if (!hasCode(reader))
        return makeError(path + ": not a TorchScript module (the archive holds no code; a torch.save'd "
                                "state_dict carries weights only: apply it to a model as a checkpoint)");
    }
    jit::Module module = jit::load(path, c10::Device(c10::kCPU));
    return TreeBuilder(path).build(module);
  });
}

Expected<std::vector<NamedTensor>> readTorchTensors(const std::string& path) {
  return guarded<std::vector<NamedTensor>>(path, [&]() -> Expected<std::vector<NamedTensor>> {
    checkZip(path);
    std::vector<NamedTensor> out;
    caffe2::serialize::PyTorchStreamReader reader(path);
    if (hasCode(reader)) {
      jit::Module module = jit::load(path, c10::Device(c10::kCPU));
      for (const auto& p : module.named_parameters(true))
        out.push_back({p.name, toTensorData(p.value, path, p.name)});
      for (const auto& b : module.named_buffers(true))
        out.push_back({b.name, toTensorData(b.value, path, b.name)});
      return out;
    }
    if (!reader.hasRecord("data.pkl")) return makeError(path + ": not a torch.save archive (no data.pkl)");
    auto [pickleData, pickleSize] = reader.getRecord("data.pkl");
    const std::string pickle(static_cast<const char*>(pickleData.get()), pickleSize);
    auto load = [&reader](const std::string& key) {
      auto [data, size] = reader.getRecord("data/" + key);
      auto held = std::make_shared<at::DataPtr>(std::move(data));
      return TorchStorageBytes{static_cast<const uint8_t*>(held->get()), size, held};
    };
    return unpickleTorchTensors(pickle, load, path);
  });
}

} // namespace lattice
