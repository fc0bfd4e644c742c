// The entry points of TorchScriptImporter.h on the program's side: the TorchScript plugin is
// found beside the executable (the same relative place in a build tree and an installation:
// LATTICE_TORCHSCRIPT_PLUGIN_FROM_BIN, set by core/model/CMakeLists.txt), or at the path in
// LATTICE_TORCHSCRIPT_PLUGIN, loaded once, and called. isZipFile needs no LibTorch.
#include "model/torchscript/TorchScriptImporter.h"

#include "model/torchscript/TorchScriptPlugin.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <vector>

#ifndef LATTICE_TORCHSCRIPT_PLUGIN_FROM_BIN
#error "LATTICE_TORCHSCRIPT_PLUGIN_FROM_BIN: the plugin's path relative to the executable's directory"
#endif

namespace lattice {

namespace {

struct LoadedPlugin {
  const TorchScriptPlugin* plugin = nullptr;
  std::string error; ///< why there is none
};

std::string executableDir() {
  std::vector<char> buf(4096);
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return ".";
  const std::string path(buf.data(), static_cast<std::size_t>(n));
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

LoadedPlugin load() {
  const char* env = std::getenv("LATTICE_TORCHSCRIPT_PLUGIN");
  const std::string path = env && *env ? std::string(env) : executableDir() + "/" + LATTICE_TORCHSCRIPT_PLUGIN_FROM_BIN;
  const std::string failed = "cannot load the TorchScript plugin " + path + ": ";
  // The plugin and LibTorch stay loaded for the life of the process.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    return {nullptr, failed + (why ? why : "dlopen failed")};
  }
  auto entry = reinterpret_cast<TorchScriptPluginEntry>(::dlsym(handle, kTorchScriptPluginEntry));
  if (!entry) return {nullptr, failed + "it has no " + kTorchScriptPluginEntry + " entry point"};
  const TorchScriptPlugin* plugin = entry(torchScriptPluginAbi().c_str());
  if (!plugin) return {nullptr, failed + "it was built by another build of Lattice Studio"};
  return {plugin, {}};
}

const LoadedPlugin& loaded() {
  static const LoadedPlugin instance = load();
  return instance;
}

} // namespace

bool isZipFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in.gcount() == 4 && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4;
}

Expected<Model> importTorchScript(const std::string& path) {
  const LoadedPlugin& p = loaded();
  if (!p.plugin) return makeError(path + ": reading TorchScript needs LibTorch: " + p.error);
  return p.plugin->importTorchScript(path);
}

Expected<std::vector<NamedTensor>> readTorchTensors(const std::string& path) {
  const LoadedPlugin& p = loaded();
  if (!p.plugin) return makeError(path + ": reading a PyTorch archive needs LibTorch: " + p.error);
  return p.plugin->readTorchTensors(path);
}

} // namespace lattice
