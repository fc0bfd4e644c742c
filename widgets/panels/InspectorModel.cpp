// The inspector's content: describeNode/describeModule turn core objects into Property trees
// (testable without a view), and InspectorModel rebuilds its tree from the session's selection.
// The tree is small (one node, one module), so every change rebuilds it with a model reset; the
// panel re-expands it. Nothing here edits the model or the graph.

#include "panels/InspectorModel.h"

#include "StudioSession.h"
#include "ValueText.h"
#include "lowering/ArtifactValue.h"
#include "lowering/TorchLatticeArtifactBuilder.h"
#include "fx/Graph.h"
#include "model/Model.h"
#include "panels/ModuleTreeModel.h"
#include "tensor/DType.h"
#include "tensor/TensorData.h"
#include "trace/Tracer.h"

#include <QFont>
#include <QSet>

#include <algorithm>

namespace lattice::studio {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}
QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<int>(s.size()));
}

QString shapeText(const std::vector<int64_t>& shape) {
  QStringList dims;
  for (int64_t d : shape)
    dims << QString::number(d);
  return QStringLiteral("[") + dims.join(QStringLiteral(", ")) + QStringLiteral("]");
}

/// One argument row: its Python repr, and the node it names when it is a plain reference.
Property valueRow(const QString& name, const fx::Value& v) {
  Property p(name, qs(fx::pythonRepr(v, true)));
  if (v.isNode() && v.asNode()) p.nodeRef = qs(v.asNode()->name());
  p.tooltip = p.value;
  return p;
}

/// A parameter or buffer slot: dtype, shape and bytes (or None).
Property tensorRow(const std::string& name, const std::optional<TensorRecord>& record) {
  if (!record) return Property(qs(name), QStringLiteral("None"));
  Property p(qs(name), qs(dtypeName(record->dtype)));
  p.shape = shapeText(record->shape);
  const int64_t numel = shapeNumel(record->shape);
  p.bytes =
      numel < 0 ? QString() : QString::number(static_cast<qulonglong>(numel) * dtypeSize(record->dtype));
  p.tooltip = QStringLiteral("key '") + qs(record->key) + QStringLiteral("'");
  return p;
}

/// The interpreter value of a node as the value table reads it and, for artifact values, their
/// fields.
Property interpreterValueRow(const fx::Value& value) {
  const ValueSummary summary = summarizeValue(value);
  Property p(QStringLiteral("Value"), valueLine(summary));
  p.tooltip = valueToolTip(summary);
  const std::vector<ArtifactValuePtr> leaves = gatherArtifactValues({value}, {});
  for (const ArtifactValuePtr& v : leaves) {
    Property leaf(qs(v->ssa()), qs(artifactKindName(v->kind())));
    leaf.children.emplace_back(QStringLiteral("Kind"), qs(artifactKindName(v->kind())));
    leaf.children.emplace_back(QStringLiteral("Channels"),
                               v->channels() ? QString::number(*v->channels()) : QStringLiteral("?"));
    leaf.children.emplace_back(QStringLiteral("DType"), qs(v->dtype()));
    leaf.children.emplace_back(QStringLiteral("SSA name"), qs(v->ssa()));
    leaf.children.emplace_back(QStringLiteral("MLIR type"), qs(v->type().str()));
    p.children.push_back(std::move(leaf));
  }
  return p;
}

} // namespace

const Property* Property::child(const QString& childName) const {
  for (const Property& c : children)
    if (c.name == childName) return &c;
  return nullptr;
}

Property describeNode(const fx::Node& node, const fx::Value* value,
                      const TorchLatticeArtifactBuilder* builder) {
  Property root(QStringLiteral("Node"), qs(node.name()));
  root.nodeRef = qs(node.name());
  root.children.emplace_back(QStringLiteral("Name"), qs(node.name()));
  root.children.emplace_back(QStringLiteral("Op"), qs(fx::opName(node.op())));
  root.children.emplace_back(QStringLiteral("Target"), qs(node.target()));

  Property args(QStringLiteral("Args"), QString::number(node.args().size()));
  for (std::size_t i = 0; i < node.args().size(); ++i)
    args.children.push_back(valueRow(QString::number(i), node.args()[i]));
  root.children.push_back(std::move(args));

  Property kwargs(QStringLiteral("Kwargs"), QString::number(node.kwargs().size()));
  for (const auto& kv : node.kwargs())
    kwargs.children.push_back(valueRow(qs(kv.first), kv.second));
  root.children.push_back(std::move(kwargs));

  Property users(QStringLiteral("Users"), QString::number(node.users().size()));
  for (const fx::Node* user : node.users()) {
    Property u(qs(user->name()), qs(fx::opName(user->op())) + QStringLiteral(" ") + qs(user->target()));
    u.nodeRef = qs(user->name());
    users.children.push_back(std::move(u));
  }
  root.children.push_back(std::move(users));

  root.children.emplace_back(QStringLiteral("FX"), qs(node.format()));
  root.children.back().tooltip = root.children.back().value;

  if (value) root.children.push_back(interpreterValueRow(*value));

  if (builder) {
    Property emitted(QStringLiteral("Emitted"), QString());
    int weights = 0;
    for (const OpProvenance* record : builder->provenanceOf(node.name())) {
      QStringList results;
      for (const std::string& r : builder->resultsOf(*record))
        results << QStringLiteral("%") + qs(r);
      const QString what = record->kind == OpProvenance::Kind::Argument
                               ? QStringLiteral("argument")
                               : QStringLiteral("lattice.") + qs(std::string(record->op));
      Property row(what, results.join(QStringLiteral(", ")));
      row.tooltip = QStringLiteral("graph.mlir line ") + QString::number(builder->lineOf(*record));
      for (const std::string& key : builder->weightKeysOf(*record)) {
        row.children.emplace_back(QStringLiteral("weight key"), qs(key));
        ++weights;
      }
      emitted.children.push_back(std::move(row));
    }
    emitted.value = QStringLiteral("%1 lines, %2 weights").arg(emitted.children.size()).arg(weights);
    if (!emitted.children.empty()) root.children.push_back(std::move(emitted));
  }
  return root;
}

Property describeModule(const ModuleInfo& module, const QString& leafText) {
  Property root(QStringLiteral("Module"), module.path.empty() ? QStringLiteral("(root)") : qs(module.path));
  root.children.emplace_back(QStringLiteral("Path"), qs(module.path));
  root.children.emplace_back(QStringLiteral("Type"), qs(module.type));
  root.children.back().tooltip = root.children.back().value;

  Property bases(QStringLiteral("Bases"), QString::number(module.bases.size()));
  for (std::size_t i = 0; i < module.bases.size(); ++i)
    bases.children.emplace_back(QString::number(i), qs(module.bases[i]));
  root.children.push_back(std::move(bases));

  root.children.emplace_back(QStringLiteral("Training"),
                             module.training ? QStringLiteral("True") : QStringLiteral("False"));
  root.children.emplace_back(QStringLiteral("Leaf"), leafText);
  root.children.emplace_back(QStringLiteral("Lowering"),
                             hasLatticeLowering(module) ? QStringLiteral("lattice") : QStringLiteral("none"));

  Property attributes(QStringLiteral("Attributes"), QString::number(module.attributes.size()));
  for (const auto& kv : module.attributes) {
    Property a(qs(kv.first), qs(fx::pythonRepr(kv.second, false)));
    a.tooltip = a.value;
    attributes.children.push_back(std::move(a));
  }
  root.children.push_back(std::move(attributes));

  // Parameters and buffers: one row per slot, and the totals on the section row.
  for (int section = 0; section < 2; ++section) {
    const auto& slots = section == 0 ? module.parameters : module.buffers;
    Property group(section == 0 ? QStringLiteral("Parameters") : QStringLiteral("Buffers"),
                   QString::number(slots.size()));
    qulonglong total = 0;
    for (const auto& slot : slots) {
      Property row = tensorRow(slot.first, slot.second);
      total += row.bytes.toULongLong();
      group.children.push_back(std::move(row));
    }
    group.bytes = QString::number(total);
    root.children.push_back(std::move(group));
  }

  Property children(QStringLiteral("Children"), QString::number(module.children.size()));
  for (const std::string& child : module.children)
    children.children.emplace_back(qs(child), QString());
  root.children.push_back(std::move(children));

  Property signature(QStringLiteral("Signature"), QString());
  QStringList params;
  for (const SignatureParam& p : module.signature)
    params << qs(p.name);
  signature.value = params.join(QStringLiteral(", "));
  root.children.push_back(std::move(signature));
  root.children.emplace_back(QStringLiteral("Graph"),
                             module.graph ? QStringLiteral("%1 nodes").arg(module.graph->size())
                                          : QStringLiteral("none (library leaf)"));
  return root;
}

Property describeModelTotals(const Model& model) {
  Property totals(QStringLiteral("Model"), QStringLiteral("%1 modules").arg(model.modules().size()));
  // Tensors shared by several slots (tied weights) count once, by key.
  for (int section = 0; section < 2; ++section) {
    QSet<QString> keys;
    qulonglong bytes = 0;
    for (const ModuleInfo& module : model.modules())
      for (const auto& slot : section == 0 ? module.parameters : module.buffers) {
        if (!slot.second || keys.contains(qs(slot.second->key))) continue;
        keys.insert(qs(slot.second->key));
        const int64_t numel = shapeNumel(slot.second->shape);
        if (numel > 0) bytes += static_cast<qulonglong>(numel) * dtypeSize(slot.second->dtype);
      }
    Property row(section == 0 ? QStringLiteral("All parameters") : QStringLiteral("All buffers"),
                 QStringLiteral("%1 tensors").arg(keys.size()));
    row.bytes = QString::number(bytes);
    totals.children.push_back(std::move(row));
  }
  return totals;
}

// --- InspectorModel -----------------------------------------------------------------------------

InspectorModel::InspectorModel(StudioSession* session, QObject* parent)
    : QAbstractItemModel(parent), m_session(session), m_root(std::make_unique<Item>()) {
  connect(session, &StudioSession::selectionChanged, this, &InspectorModel::onNodeSelected);
  connect(session, &StudioSession::moduleSelectionChanged, this, &InspectorModel::onModuleSelected);
  connect(session, &StudioSession::interpreterStepped, this, &InspectorModel::onStepped);
  connect(session, &StudioSession::interpreterFailed, this, &InspectorModel::onStepped);
  connect(session, &StudioSession::interpreterReset, this, &InspectorModel::rebuild);
  connect(session, &StudioSession::interpreterFinished, this, &InspectorModel::rebuild);
  connect(session, &StudioSession::graphChanged, this, &InspectorModel::rebuild);
  connect(session, &StudioSession::modelLoaded, this, [this] {
    m_modulePath.clear();
    m_showModule = false;
    m_showNode = false;
    rebuild();
  });
  m_showNode = !session->selectedNode().isEmpty();
  m_modulePath = session->selectedModule();
  m_showModule = session->hasModuleSelection();
  rebuild();
}

void InspectorModel::onNodeSelected(const QString& node) {
  m_showNode = !node.isEmpty();
  m_modulePath.clear();
  m_showModule = false;
  if (const fx::Graph* graph = m_session->graph(); graph && m_showNode) {
    const fx::Node* n = graph->findNode(node.toStdString());
    if (n && n->op() == fx::Op::CallModule) {
      m_modulePath = qs(n->target());
      m_showModule = true;
    }
  }
  rebuild();
}

void InspectorModel::onModuleSelected(const QString& path) {
  m_modulePath = path;
  m_showModule = m_session->hasModuleSelection();
  // The node stays only when it is the call of that module.
  const fx::Graph* graph = m_session->graph();
  const fx::Node* n = graph ? graph->findNode(m_session->selectedNode().toStdString()) : nullptr;
  m_showNode = m_showModule && n && n->op() == fx::Op::CallModule && qs(n->target()) == path;
  rebuild();
}

void InspectorModel::onStepped() {
  // A run signals once per slice: rebuild only when the shown node ran in it, or failed (the
  // value and the emitted lines are all that stepping changes here).
  const QStringList& executed = m_session->executedNodes();
  const int seen = std::min<int>(m_executedSeen, executed.size());
  m_executedSeen = executed.size();
  if (!m_showNode) return;
  const QString& shown = m_session->selectedNode();
  bool ran = m_session->failedNode() == shown;
  for (int i = executed.size() - 1; i >= seen && !ran; --i)
    ran = executed[i] == shown;
  if (ran) rebuild();
}

std::unique_ptr<InspectorModel::Item> InspectorModel::makeItem(const Property& property, Item* parent,
                                                               int row) {
  auto item = std::make_unique<Item>();
  item->parent = parent;
  item->row = row;
  item->property = &property;
  item->children.reserve(property.children.size());
  for (std::size_t i = 0; i < property.children.size(); ++i)
    item->children.push_back(makeItem(property.children[i], item.get(), static_cast<int>(i)));
  return item;
}

void InspectorModel::rebuild() {
  m_executedSeen = m_session->executedNodes().size();
  beginResetModel();
  m_root = std::make_unique<Item>();
  m_sections.clear();
  m_sections.reserve(2); // items point into it
  const fx::Graph* graph = m_session->graph();
  const Model* model = m_session->model();
  if (m_showNode && graph) {
    if (const fx::Node* node = graph->findNode(m_session->selectedNode().toStdString())) {
      const fx::Value* value = nullptr;
      const TorchLatticeArtifactBuilder* builder = nullptr;
      if (const PreparedLowering* lowering = m_session->lowering()) {
        builder = lowering->builder.get();
        // The lowering runs the session's graph: the node is the interpreter's.
        if (lowering->interpreter) value = lowering->interpreter->valueOf(node);
      }
      m_sections.push_back(describeNode(*node, value, builder));
    }
  }
  if (model && m_showModule) {
    if (const ModuleInfo* module = model->module(m_modulePath.toStdString())) {
      const bool leaf = m_session->tracer().isLeaf(*module);
      const bool overridden = m_session->tracer().leafOverrides().count(module->path) > 0;
      QString leafText = leaf ? QStringLiteral("leaf") : QStringLiteral("inlined");
      if (overridden) leafText += QStringLiteral(" (override)");
      if (module->path.empty()) leafText = QStringLiteral("root (always traced)");
      if (isModuleContainer(*module)) leafText = QStringLiteral("container (never called: its children are)");
      m_sections.push_back(describeModule(*module, leafText));
      if (module->path.empty()) m_sections.back().children.push_back(describeModelTotals(*model));
    }
  }
  for (std::size_t i = 0; i < m_sections.size(); ++i)
    m_root->children.push_back(makeItem(m_sections[i], m_root.get(), static_cast<int>(i)));
  endResetModel();
}

const Property* InspectorModel::nodeSection() const {
  for (const Property& section : m_sections)
    if (section.name == QStringLiteral("Node")) return &section;
  return nullptr;
}

const Property* InspectorModel::moduleSection() const {
  for (const Property& section : m_sections)
    if (section.name == QStringLiteral("Module")) return &section;
  return nullptr;
}

InspectorModel::Item* InspectorModel::itemOf(const QModelIndex& index) const {
  if (!index.isValid() || index.model() != this) return m_root.get();
  return static_cast<Item*>(index.internalPointer());
}

QModelIndex InspectorModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= ColumnCount) return {};
  if (parent.isValid() && parent.column() != 0) return {};
  Item* p = itemOf(parent);
  if (row >= static_cast<int>(p->children.size())) return {};
  return createIndex(row, column, p->children[row].get());
}

QModelIndex InspectorModel::parent(const QModelIndex& child) const {
  if (!child.isValid()) return {};
  Item* item = itemOf(child);
  if (!item->parent || item->parent == m_root.get()) return {};
  return createIndex(item->parent->row, 0, item->parent);
}

int InspectorModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() && parent.column() != 0) return 0;
  return static_cast<int>(itemOf(parent)->children.size());
}

int InspectorModel::columnCount(const QModelIndex&) const {
  return ColumnCount;
}

QVariant InspectorModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const Item* item = itemOf(index);
  const Property& p = *item->property;
  switch (role) {
  case Qt::DisplayRole:
    switch (index.column()) {
    case NameColumn:
      return p.name;
    case ValueColumn:
      return p.value;
    case ShapeColumn:
      return p.shape;
    case BytesColumn:
      return p.bytes;
    default:
      return {};
    }
  case Qt::ToolTipRole:
    return p.tooltip.isEmpty() ? QVariant() : QVariant(p.tooltip);
  case NodeRefRole:
    return p.nodeRef;
  case Qt::FontRole:
    if (item->parent == m_root.get()) {
      QFont font;
      font.setBold(true);
      return font;
    }
    if (!p.nodeRef.isEmpty() && index.column() == ValueColumn) {
      QFont font;
      font.setUnderline(true);
      return font;
    }
    return {};
  case Qt::TextAlignmentRole:
    if (index.column() == BytesColumn) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
  default:
    return {};
  }
}

QVariant InspectorModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
  case NameColumn:
    return QStringLiteral("Property");
  case ValueColumn:
    return QStringLiteral("Value");
  case ShapeColumn:
    return QStringLiteral("Shape");
  case BytesColumn:
    return QStringLiteral("Bytes");
  default:
    return {};
  }
}

} // namespace lattice::studio
