// ModelTrace: loading and tracing (loadAndTrace runs on a worker thread and touches nothing of
// the session), re-tracing with new leaf overrides, and weights applied to the model. It keeps
// no selection, breakpoints or inputs: those are the session's other parts.

#include "session/ModelTrace.h"

#include "model/ArchiveRecordings.h"
#include "model/LoadModel.h"

#include <QDir>
#include <QFileInfo>

namespace lattice::studio {

namespace {

QString toQString(const std::string& s) {
  return QString::fromStdString(s);
}

/// A model equal to `model`, sharing its tensors' bytes (TensorData copies share them).
std::shared_ptr<Model> copyOf(const Model& model) {
  auto copy = std::make_shared<Model>();
  for (const ModuleInfo& module : model.modules())
    copy->addModule(module);
  for (const auto& [key, tensor] : model.tensors())
    copy->setTensor(key, tensor);
  copy->exampleInputs = model.exampleInputs;
  copy->lowering = model.lowering;
  copy->producerName = model.producerName;
  copy->producerVersion = model.producerVersion;
  copy->source = model.source;
  return copy;
}

} // namespace

std::shared_ptr<ModelTrace::LoadResult> ModelTrace::loadAndTrace(const LoadRequest& request) {
  auto result = std::make_shared<LoadResult>();
  result->reference = request.reference;
  Expected<Model> model = loadModel(request.reference.toStdString());
  if (!model) {
    result->loadError = toQString(model.message());
    return result;
  }
  result->model = std::make_unique<Model>(std::move(*model));
  if (!request.checkpoint.isEmpty()) {
    Expected<Checkpoint> checkpoint = readCheckpoint(request.checkpoint.toStdString());
    CheckpointOptions options;
    options.allowPartial = request.checkpointPartial;
    Expected<CheckpointReport> report =
        checkpoint ? applyCheckpoint(*result->model, *checkpoint, options) : Expected<CheckpointReport>(checkpoint.error());
    if (report)
      result->checkpointReport = *report;
    else
      result->checkpointError = toQString(report.message());
  }
  for (const auto& [path, leaf] : request.overrides)
    if (result->model->module(path)) result->tracer.setLeafOverride(path, leaf);
  Expected<std::unique_ptr<fx::Graph>> graph = result->tracer.trace(*result->model);
  if (graph)
    result->graph = std::move(*graph);
  else
    result->traceError = toQString(graph.message());
  return result;
}

QStringList ModelTrace::filesOf(const QString& reference, const QString& checkpoint) {
  QStringList files;
  if (!reference.isEmpty() && !reference.startsWith(QStringLiteral("example:"))) {
    const QFileInfo info(reference);
    if (info.isDir()) {
      const QDir dir(info.absoluteFilePath());
      for (const char* name : {"model.json", "weights.safetensors", kArchiveInputsFile, kArchiveActivationsFile})
        files << QDir::cleanPath(dir.filePath(QString::fromLatin1(name)));
    } else {
      files << QDir::cleanPath(info.absoluteFilePath());
    }
  }
  if (!checkpoint.isEmpty()) files << QDir::cleanPath(QFileInfo(checkpoint).absoluteFilePath());
  return files;
}

QStringList ModelTrace::files() const {
  return m_model ? filesOf(m_reference, m_weightsSource) : QStringList();
}

bool ModelTrace::isLeaf(const QString& modulePath) const {
  if (!m_model) return false;
  const ModuleInfo* module = m_model->module(modulePath.toStdString());
  return module && m_tracer.isLeaf(*module);
}

void ModelTrace::take(LoadResult& result) {
  m_reference = result.reference;
  m_model = std::shared_ptr<Model>(std::move(result.model));
  m_graph = std::shared_ptr<const fx::Graph>(std::move(result.graph));
  m_tracer = std::move(result.tracer);
  setWeights(QString(), CheckpointReport(), false);
}

QString ModelTrace::setLeafOverride(const QString& modulePath, std::optional<bool> leaf) {
  if (!m_model) return {};
  const std::string path = modulePath.toStdString();
  if (leaf)
    m_tracer.setLeafOverride(path, *leaf);
  else
    m_tracer.clearLeafOverride(path);
  Expected<std::unique_ptr<fx::Graph>> graph = m_tracer.trace(*m_model);
  if (!graph) {
    m_graph.reset();
    return toQString(graph.message());
  }
  m_graph = std::shared_ptr<const fx::Graph>(std::move(*graph));
  return {};
}

void ModelTrace::setWeights(const QString& source, const CheckpointReport& report, bool partial) {
  m_weightsSource = source;
  m_weightsReport = report;
  m_weightsPartial = partial;
}

Expected<CheckpointReport> ModelTrace::applyWeights(const Checkpoint& checkpoint, bool allowPartial) {
  if (!m_model) return makeError("no model is open to load '" + checkpoint.source + "' into");
  CheckpointOptions options;
  options.allowPartial = allowPartial;
  // A snapshot shares the model: the new weights go into a copy, which the session shows from
  // now on, while the worker finishes on the model it was given.
  std::shared_ptr<Model> target = m_model.use_count() > 1 ? copyOf(*m_model) : m_model;
  Expected<CheckpointReport> report = applyCheckpoint(*target, checkpoint, options);
  if (!report) return report;
  m_model = std::move(target);
  setWeights(toQString(checkpoint.source), *report, allowPartial);
  return report;
}

} // namespace lattice::studio
