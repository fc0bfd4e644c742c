// ModuleTreeModel: adapts the session's Model (module records) and LatticeTracer (leaf decisions)
// to a QAbstractItemModel. It does not trace: a checkbox change goes to
// StudioSession::setLeafOverride (through LeafEdits, so it can be undone), and the decisions are
// re-read when the session reports a new graph (or a failed trace, which keeps the override the
// user just made visible).

#include "panels/ModuleTreeModel.h"

#include "LeafEdits.h"
#include "StudioSession.h"
#include "model/Model.h"
#include "trace/Tracer.h"

#include <QBrush>
#include <QFont>
#include <QPalette>

namespace lattice::studio {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

} // namespace

bool isModuleContainer(const ModuleInfo& module) {
  static const char* const containers[] = {
      "torch.nn.modules.container.ModuleList",
      "torch.nn.modules.container.ModuleDict",
      "torch.nn.modules.container.ParameterList",
      "torch.nn.modules.container.ParameterDict",
  };
  if (module.path.empty() || module.graph) return false; // the root, or a subclass with a forward
  for (const char* type : containers)
    if (module.isA(type)) return true;
  return false;
}

ModuleTreeModel::ModuleTreeModel(StudioSession* session, QObject* parent)
    : QAbstractItemModel(parent), m_session(session) {
  connect(session, &StudioSession::modelLoaded, this, &ModuleTreeModel::rebuild);
  connect(session, &StudioSession::graphChanged, this, &ModuleTreeModel::refreshDecisions);
  connect(session, &StudioSession::traceFailed, this, &ModuleTreeModel::refreshDecisions);
  rebuild();
}

void ModuleTreeModel::rebuild() {
  beginResetModel();
  m_rows.clear();
  const Model* model = m_session->model();
  if (model && !model->modules().empty()) {
    const std::vector<ModuleInfo>& modules = model->modules();
    m_rows.reserve(modules.size());
    m_rows.push_back(Row{0, -1, 0, {}});
    // Breadth first over the `children` lists; the Row vector only grows at its end, so indices
    // stay valid while parents gain children.
    for (std::size_t r = 0; r < m_rows.size(); ++r) {
      const ModuleInfo& parentModule = modules[m_rows[r].module];
      for (const std::string& child : parentModule.children) {
        const ModuleInfo* info = model->module(parentModule.childPath(child));
        if (!info) continue;
        Row row;
        row.module = static_cast<std::size_t>(info - modules.data());
        row.parent = static_cast<int>(r);
        row.row = static_cast<int>(m_rows[r].children.size());
        m_rows[r].children.push_back(static_cast<int>(m_rows.size()));
        m_rows.push_back(std::move(row));
      }
    }
  }
  endResetModel();
}

void ModuleTreeModel::refreshDecisions() {
  if (m_rows.empty()) return;
  const QModelIndex root = createIndex(0, 0, quintptr(0));
  Q_EMIT dataChanged(root, root.siblingAtColumn(ColumnCount - 1));
  for (std::size_t r = 0; r < m_rows.size(); ++r) {
    const Row& row = m_rows[r];
    if (row.children.empty()) continue;
    const int first = row.children.front();
    const int last = row.children.back();
    Q_EMIT dataChanged(createIndex(m_rows[first].row, 0, quintptr(first)),
                       createIndex(m_rows[last].row, ColumnCount - 1, quintptr(last)));
  }
}

const ModuleTreeModel::Row* ModuleTreeModel::rowOf(const QModelIndex& index) const {
  if (!index.isValid() || index.model() != this) return nullptr;
  const quintptr id = index.internalId();
  return id < m_rows.size() ? &m_rows[id] : nullptr;
}

const ModuleInfo* ModuleTreeModel::moduleAt(const QModelIndex& index) const {
  const Row* row = rowOf(index);
  const Model* model = m_session->model();
  return row && model ? &model->modules()[row->module] : nullptr;
}

bool ModuleTreeModel::insideLeaf(const Row& row) const {
  const std::vector<ModuleInfo>& modules = m_session->model()->modules();
  for (int p = row.parent; p > 0; p = m_rows[p].parent) { // the root (0) is never a leaf
    const ModuleInfo& ancestor = modules[m_rows[p].module];
    if (!isModuleContainer(ancestor) && m_session->tracer().isLeaf(ancestor)) return true;
  }
  return false;
}

QModelIndex ModuleTreeModel::indexOfPath(const QString& path) const {
  const Model* model = m_session->model();
  if (!model || m_rows.empty()) return {};
  const ModuleInfo* target = model->module(path.toStdString());
  if (!target) return {};
  // Walk down from the root along the path's components.
  const std::vector<ModuleInfo>& modules = model->modules();
  int current = 0;
  const std::string full = path.toStdString();
  while (modules[m_rows[current].module].path != full) {
    int next = -1;
    for (int child : m_rows[current].children) {
      const std::string& childPath = modules[m_rows[child].module].path;
      if (full == childPath ||
          (full.size() > childPath.size() && full.compare(0, childPath.size(), childPath) == 0 &&
           full[childPath.size()] == '.')) {
        next = child;
        break;
      }
    }
    if (next < 0) return {};
    current = next;
  }
  return createIndex(m_rows[current].row, 0, quintptr(current));
}

QModelIndex ModuleTreeModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= ColumnCount) return {};
  if (!parent.isValid()) {
    if (row != 0 || m_rows.empty()) return {};
    return createIndex(0, column, quintptr(0));
  }
  const Row* p = rowOf(parent);
  if (!p || parent.column() != 0 || row >= static_cast<int>(p->children.size())) return {};
  return createIndex(row, column, quintptr(p->children[row]));
}

QModelIndex ModuleTreeModel::parent(const QModelIndex& child) const {
  const Row* row = rowOf(child);
  if (!row || row->parent < 0) return {};
  return createIndex(m_rows[row->parent].row, 0, quintptr(row->parent));
}

int ModuleTreeModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return m_rows.empty() ? 0 : 1;
  if (parent.column() != 0) return 0;
  const Row* row = rowOf(parent);
  return row ? static_cast<int>(row->children.size()) : 0;
}

int ModuleTreeModel::columnCount(const QModelIndex&) const {
  return ColumnCount;
}

QVariant ModuleTreeModel::data(const QModelIndex& index, int role) const {
  const Row* row = rowOf(index);
  if (!row) return {};
  const ModuleInfo& module = m_session->model()->modules()[row->module];
  const bool isRoot = row->parent < 0;
  const LatticeTracer& tracer = m_session->tracer();
  const bool container = isModuleContainer(module);
  const bool leaf = !container && tracer.isLeaf(module);
  const bool overridden = !container && tracer.leafOverrides().count(module.path) > 0;
  const bool lowered = hasLatticeLowering(module);

  switch (role) {
  case PathRole:
    return qs(module.path);
  case IsLeafRole:
    return leaf;
  case OverriddenRole:
    return overridden;
  case HasLoweringRole:
    return lowered;
  case InsideLeafRole:
    return insideLeaf(*row);
  case IsContainerRole:
    return container;
  default:
    break;
  }

  switch (role) {
  case Qt::DisplayRole:
    switch (index.column()) {
    case NameColumn:
      return isRoot ? QStringLiteral("(root)") : qs(localName(module.path));
    case TypeColumn:
      return qs(module.className());
    case LeafColumn:
      if (isRoot) return QStringLiteral("root");
      if (container) return QStringLiteral("container");
      return overridden ? (leaf ? QStringLiteral("leaf (kept)") : QStringLiteral("inlined (expanded)"))
                        : (leaf ? QStringLiteral("leaf") : QStringLiteral("inlined"));
    case LoweringColumn:
      return lowered ? QStringLiteral("lattice") : QString();
    default:
      return {};
    }
  case Qt::CheckStateRole:
    if (index.column() == LeafColumn && !isRoot && !container) return leaf ? Qt::Checked : Qt::Unchecked;
    return {};
  case Qt::ToolTipRole:
    switch (index.column()) {
    case NameColumn:
      return isRoot ? QStringLiteral("the root module") : qs(module.path);
    case TypeColumn: {
      QString tip = qs(module.type);
      for (const std::string& base : module.bases)
        tip += QStringLiteral("\n  ") + qs(base);
      return tip;
    }
    case LeafColumn:
      if (isRoot) return QStringLiteral("the root is always traced");
      if (container)
        return QStringLiteral("a %1 only holds modules and is never called itself: the graph calls its "
                              "children, so set their leaf decisions")
            .arg(qs(module.className()));
      return leaf ? QStringLiteral("kept as one call_module node; uncheck to inline its graph")
                  : QStringLiteral("inlined from its graph; check to keep it as one call_module node");
    case LoweringColumn:
      return lowered ? QStringLiteral("the type or a base has a lattice module lowering")
                     : QStringLiteral("no lattice module lowering");
    default:
      return {};
    }
  case Qt::FontRole:
    if (overridden && index.column() == LeafColumn) {
      QFont font;
      font.setItalic(true);
      return font;
    }
    if (lowered && index.column() == TypeColumn) {
      QFont font;
      font.setBold(true);
      return font;
    }
    return {};
  case Qt::ForegroundRole:
    // Modules under a leaf are not traced into: their decisions do not matter right now.
    if ((!isRoot && insideLeaf(*row)) || (container && index.column() == LeafColumn))
      return QBrush(QPalette().color(QPalette::Disabled, QPalette::Text));
    return {};
  default:
    return {};
  }
}

bool ModuleTreeModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  const Row* row = rowOf(index);
  if (!row || row->parent < 0 || role != Qt::CheckStateRole || index.column() != LeafColumn) return false;
  const ModuleInfo& module = m_session->model()->modules()[row->module];
  if (isModuleContainer(module)) return false; // nothing to decide
  const bool wantLeaf = static_cast<Qt::CheckState>(value.toInt()) == Qt::Checked;
  // Back to the policy's own decision clears the override instead of pinning it.
  const bool policy = m_session->tracer().isLeafModule(module, module.path);
  LeafEdits::of(m_session)->set(qs(module.path),
                                wantLeaf == policy ? std::nullopt : std::optional<bool>(wantLeaf));
  return true; // the session's graphChanged/traceFailed refreshes every decision
}

Qt::ItemFlags ModuleTreeModel::flags(const QModelIndex& index) const {
  const Row* row = rowOf(index);
  if (!row) return Qt::NoItemFlags;
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  if (index.column() == LeafColumn && row->parent >= 0 &&
      !isModuleContainer(m_session->model()->modules()[row->module]))
    f |= Qt::ItemIsUserCheckable;
  return f;
}

QVariant ModuleTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
  case NameColumn:
    return QStringLiteral("Module");
  case TypeColumn:
    return QStringLiteral("Type");
  case LeafColumn:
    return QStringLiteral("Leaf");
  case LoweringColumn:
    return QStringLiteral("Lowering");
  default:
    return {};
  }
}

} // namespace lattice::studio
