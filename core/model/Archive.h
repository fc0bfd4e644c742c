#pragma once
/// \file The `.ltfx` FX archive reader and writer (fx-archive.md).

#include "model/Model.h"
#include "support/Expected.h"

#include <string>

namespace lattice {

class SafetensorsFile;

/// The archive format version this reader and writer implement.
constexpr int kArchiveVersion = 1;

/// Reads `dir/model.json` and `dir/weights.safetensors` (into memory). Errors name the file and the
/// JSON location (`model.json: modules[3].graph.nodes[7].args[0]: reference to unknown node 'y'`)
/// or the tensor key. weights.safetensors may be absent only when model.json records no tensor.
/// Sets `Model::source` to `dir`.
Expected<Model> readArchive(const std::string& dir);
/// Parses model.json text alone (no tensor checks, no tensors). Messages start with `fileName`.
Expected<Model> parseArchiveJson(const std::string& jsonText, const std::string& fileName);
/// Parses model.json text and resolves every tensor record against `weights` (key present,
/// dtype and shape equal); every tensor of `weights`, extra keys included, becomes a model
/// tensor sharing the file's memory. `weights` null: as the two-argument overload.
Expected<Model> parseArchiveJson(const std::string& jsonText, const std::string& fileName,
                                 const SafetensorsFile* weights);
/// Writes `dir` (created if missing): model.json (2-space indented, keys in the spec's order)
/// and weights.safetensors (every model tensor, `{"format": "torch"}` metadata). Each file is
/// written beside its final name and renamed over it, so rewriting the archive a model was
/// read from (whose tensors share its weights' bytes) is safe. Every tensor record must name a model
/// tensor of the recorded dtype and shape.
Status writeArchive(const Model& model, const std::string& dir);

} // namespace lattice
