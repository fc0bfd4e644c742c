#pragma once
/// \file The `.ltfx` FX archive reader and writer (fx-archive.md).

#include "model/Model.h"
#include "support/Expected.h"

#include <cstddef>
#include <string>

namespace lattice {

class SafetensorsFile;

/// The archive format version this reader and writer implement.
constexpr int kArchiveVersion = 1;

/// The largest model.json the reader accepts and the writer writes: 128 MiB. Reading holds the
/// document, a copy of each value and the model at once: about 11 times the text for a real
/// archive, up to about 50 times for dense arrays of small numbers (20 MB of `0,` take 1 GB), so
/// the limit bounds what a crafted file can take to about 6.5 GB. The largest archive we make,
/// `example:chain:10000` (30 000 modules), is 55 MB. A larger file is refused by its size before
/// it is read: "<file>: file is larger than the reader limit (<size> > 134217728 bytes)".
inline constexpr std::size_t kMaxArchiveJsonBytes = std::size_t(128) << 20;

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
/// Writes `dir` (created if missing): model.json (2-space indented, keys in the spec's order;
/// a text over kMaxArchiveJsonBytes is refused before anything is written: "<dir>: not written:
/// model.json would be <n> bytes, over the reader's limit of <limit> bytes") and
/// weights.safetensors (every model tensor, `{"format": "torch"}` metadata). Each file is
/// written beside its final name and renamed over it, so rewriting the archive a model was
/// read from (whose tensors share its weights' bytes) is safe. Every tensor record must name a model
/// tensor of the recorded dtype and shape.
Status writeArchive(const Model& model, const std::string& dir);

} // namespace lattice
