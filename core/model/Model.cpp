// Model and ModuleInfo: the module tree with its path index and the weight table. Validation of
// records read from disk lives in the archive reader; here the tree's invariants are
// preconditions (checked by assertions in debug builds).
#include "model/Model.h"

#include <cassert>

namespace lattice {

bool ModuleInfo::isA(const std::string& qualifiedType) const {
  if (type == qualifiedType) return true;
  for (const std::string& base : bases)
    if (base == qualifiedType) return true;
  return false;
}

std::string ModuleInfo::className() const {
  const std::size_t dot = type.rfind('.');
  return dot == std::string::npos ? type : type.substr(dot + 1);
}

const fx::Value* ModuleInfo::attribute(const std::string& name) const {
  for (const auto& [key, value] : attributes)
    if (key == name) return &value;
  return nullptr;
}

std::string ModuleInfo::childPath(const std::string& localName) const {
  return path.empty() ? localName : path + "." + localName;
}

std::string parentPath(const std::string& path) {
  const std::size_t dot = path.rfind('.');
  return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

std::string localName(const std::string& path) {
  const std::size_t dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

ModuleInfo& Model::addModule(ModuleInfo module) {
  // The root first, then parents before children; paths unique.
  assert(m_modules.empty() == module.path.empty());
  assert(m_modules.empty() || m_byPath.count(parentPath(module.path)) != 0);
  assert(m_byPath.count(module.path) == 0);
  m_byPath.emplace(module.path, m_modules.size()); // keeps the first on a (release-build) duplicate
  m_modules.push_back(std::move(module));
  return m_modules.back();
}

const ModuleInfo* Model::module(const std::string& path) const {
  const auto it = m_byPath.find(path);
  return it == m_byPath.end() ? nullptr : &m_modules[it->second];
}

ModuleInfo* Model::module(const std::string& path) {
  const auto it = m_byPath.find(path);
  return it == m_byPath.end() ? nullptr : &m_modules[it->second];
}

void Model::setTensor(const std::string& key, TensorData tensor) {
  TensorData& slot = m_tensors[key];
  slot = std::move(tensor);
  m_tensorIndex[key] = &slot;
}

const TensorData* Model::tensor(const std::string& key) const {
  const auto it = m_tensorIndex.find(key);
  return it == m_tensorIndex.end() ? nullptr : it->second;
}

uint64_t Model::weightBytes() const {
  uint64_t total = 0;
  for (const auto& entry : m_tensors) total += entry.second.byteSize();
  return total;
}

std::string Model::resolvedInputDtype() const {
  if (lowering && lowering->inputDtype) return *lowering->inputDtype;
  for (const InputSpec& input : exampleInputs)
    if (input.kind == InputSpec::Kind::Sparse && !input.dtype.empty()) return input.dtype;
  return "f32";
}

} // namespace lattice
