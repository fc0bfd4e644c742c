#pragma once
// Test-only helpers shared by the artifact diff tests (tst_artifact_diff*.cpp): tiny artifact
// directories written from graph text and hand-made tensors, text edits that must hit exactly
// once, and formatDiff's difference lines without the header and summary. Header-only so each
// tst_*.cpp stays a single translation unit.

#include "diff/ArtifactDiff.h"
#include "tensor/Safetensors.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QString>
#include <QtCore/QStringList>
#include <QtTest/QtTest>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace lattice::difftest {

inline const std::string kConformance = std::string(LATTICE_TEST_DATA_DIR) + "/conformance/";

inline std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void writeText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

/// `text` with the single occurrence of `from` replaced by `to` (a test error otherwise).
inline std::string replacedOnce(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at == std::string::npos || text.find(from, at + 1) != std::string::npos)
    qFatal("test text must contain '%s' exactly once", from.c_str());
  return text.replace(at, from.size(), to);
}

/// The whole line (with its newline) containing `marker`.
inline std::string lineContaining(const std::string& text, const std::string& marker) {
  const std::size_t at = text.find(marker);
  if (at == std::string::npos) qFatal("test text does not contain '%s'", marker.c_str());
  const std::size_t begin = text.rfind('\n', at) + 1;
  const std::size_t end = text.find('\n', at);
  return text.substr(begin, end - begin + 1);
}

template <typename T>
TensorData tensorOf(DType dtype, std::vector<int64_t> shape, const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return TensorData::owning(dtype, std::move(shape), std::move(bytes));
}
inline TensorData f32(std::vector<int64_t> shape, const std::vector<float>& v) {
  return tensorOf(DType::F32, std::move(shape), v);
}
/// F16 from raw binary16 bit patterns.
inline TensorData f16(std::vector<int64_t> shape, const std::vector<uint16_t>& bits) {
  return tensorOf(DType::F16, std::move(shape), bits);
}
inline TensorData u32(std::vector<int64_t> shape, const std::vector<uint32_t>& v) {
  return tensorOf(DType::U32, std::move(shape), v);
}

/// Writes `dir` as an artifact (graph.mlir + weights.safetensors) and returns its path.
inline std::string writeArtifact(const QString& dir, const std::string& graph,
                                 const std::vector<NamedTensor>& tensors) {
  QDir().mkpath(dir);
  const std::string path = dir.toStdString();
  writeText(path + "/graph.mlir", graph);
  const Status s = writeSafetensors(path + "/weights.safetensors", tensors, torchWeightsMetadata());
  if (!s) qFatal("%s", s.message().c_str());
  return path;
}

/// Copies an artifact directory's two files into `dir`, with `graph` replacing graph.mlir when given.
inline std::string copyArtifact(const std::string& from, const QString& dir,
                                const std::string* graph = nullptr) {
  QDir().mkpath(dir);
  const std::string path = dir.toStdString();
  writeText(path + "/graph.mlir", graph ? *graph : readText(from + "/graph.mlir"));
  if (!QFile::copy(QString::fromStdString(from + "/weights.safetensors"),
                   dir + QStringLiteral("/weights.safetensors")))
    qFatal("cannot copy weights of %s", from.c_str());
  return path;
}

inline LoadedArtifact load(const std::string& path) {
  Expected<LoadedArtifact> a = loadArtifact(path);
  if (!a) qFatal("%s", a.message().c_str());
  return std::move(*a);
}

/// formatDiff's lines between the `---`/`+++` header and the summary.
inline QStringList differenceLines(const ArtifactDiff& diff) {
  QStringList lines =
      QString::fromStdString(formatDiff(diff, "A", "B")).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  if (lines.size() < 3 || lines.front() != QStringLiteral("--- A") ||
      !lines.back().startsWith(QStringLiteral("summary: ")))
    return lines; // the caller's comparison shows what came instead
  return lines.mid(2, lines.size() - 3);
}

/// The header every hand-written test graph starts with; `inputs` and `outputs` are the ABI
/// names (roles `tensor`).
inline std::string moduleHeader(const std::string& inputs, const std::string& inputRoles) {
  return "module attributes {\n"
         "  lattice.ir_version = 2,\n"
         "  lattice.schema_digest = \"1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad\",\n"
         "  lattice.input_names = [" +
         inputs +
         "],\n"
         "  lattice.input_roles = [" +
         inputRoles +
         "],\n"
         "  lattice.output_names = [\"output\"],\n"
         "  lattice.output_roles = [\"tensor\"],\n"
         "  lattice.weight_file = \"weights.safetensors\"\n"
         "} {\n";
}

} // namespace lattice::difftest
