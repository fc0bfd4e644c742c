// Help ▸ Keyboard Shortcuts and Help ▸ About. The shortcuts table is built from the window's
// QActions, so it can never disagree with the keys that work.

#include "help/HelpDialogs.h"

#include "layout/GraphLayout.h"
#include "model/LibraryVersions.h"

#include <QAction>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

namespace lattice::studio {

namespace {

/// The menu path of the first menu that lists `action` ("Debug", "File ▸ Open Example").
QString menuOf(const QAction* action) {
  for (QObject* widget : action->associatedObjects()) {
    const auto* menu = qobject_cast<const QMenu*>(widget);
    if (!menu) continue;
    // Up through the menus that list this one (a tab's submenu is not their child); untitled
    // ones, such as the menu bar's overflow popup, are no menu of the path.
    QStringList path{menu->title().remove(QLatin1Char('&'))};
    for (int depth = 0; depth < 8 && menu; ++depth) {
      const QMenu* outer = nullptr;
      for (QObject* o : menu->menuAction()->associatedObjects()) {
        const auto* m = qobject_cast<const QMenu*>(o);
        if (m && !m->title().isEmpty()) {
          outer = m;
          break;
        }
      }
      if (outer) path.prepend(outer->title().remove(QLatin1Char('&')));
      menu = outer;
    }
    return path.join(QStringLiteral(" ▸ "));
  }
  return QStringLiteral("Window");
}

} // namespace

ShortcutsDialog::ShortcutsDialog(const QList<QAction*>& actions, QWidget* parent)
    : QDialog(parent), m_model(new QStandardItemModel(0, 3, this)), m_proxy(new QSortFilterProxyModel(this)),
      m_search(new QLineEdit(this)), m_table(new QTableView(this)) {
  setObjectName(QStringLiteral("shortcutsDialog"));
  setWindowTitle(tr("Keyboard Shortcuts"));
  m_model->setHorizontalHeaderLabels({tr("Action"), tr("Shortcut"), tr("Menu")});
  for (const QAction* a : actions) {
    QString text = a->text();
    text.remove(QLatin1Char('&'));
    if (text.isEmpty() || a->isSeparator()) continue;
    QStringList keys;
    for (const QKeySequence& k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText);
    auto* action = new QStandardItem(text);
    action->setToolTip(a->toolTip());
    m_model->appendRow({action, new QStandardItem(keys.join(QStringLiteral(", "))), new QStandardItem(menuOf(a))});
  }
  for (const KeyRow& row : otherKeys())
    m_model->appendRow({new QStandardItem(row.action), new QStandardItem(row.keys), new QStandardItem(row.where)});
  for (int r = 0; r < m_model->rowCount(); ++r)
    for (int c = 0; c < 3; ++c) m_model->item(r, c)->setEditable(false);
  m_model->sort(ActionColumn);
  m_model->sort(MenuColumn); // stable: by menu, then by action

  m_proxy->setSourceModel(m_model);
  m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
  m_proxy->setFilterKeyColumn(-1); // any column
  m_search->setPlaceholderText(tr("Search actions and keys"));
  m_search->setClearButtonEnabled(true);
  connect(m_search, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);

  m_table->setModel(m_proxy);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->verticalHeader()->hide();
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8); // compact rows
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setAlternatingRowColors(true);
  m_table->setShowGrid(false);
  m_table->resizeColumnsToContents();

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_search);
  layout->addWidget(m_table, 1);
  layout->addWidget(buttons);
  resize(600, 680);
  m_search->setFocus();
}

QList<ShortcutsDialog::KeyRow> ShortcutsDialog::otherKeys() {
  const auto tr = [](const char* text) { return QCoreApplication::translate("ShortcutsDialog", text); };
  const QString graph = tr("Graph");
  const QString find = tr("Find bar");
  return {
      {tr("Zoom in (graph key)"), QStringLiteral("+, ="), graph},
      {tr("Zoom out (graph key)"), QStringLiteral("-"), graph},
      {tr("Zoom under the cursor"), tr("Wheel"), graph},
      {tr("Scroll sideways"), tr("Shift+Wheel"), graph},
      {tr("Pan"), tr("Drag the background"), graph},
      {tr("Select a node or group"), tr("Click"), graph},
      {tr("Expand or collapse one group"), tr("Click its + or −"), graph},
      {tr("Expand a group box, collapse a frame"), tr("Double-click"), graph},
      {tr("Menu of a node or group"), tr("Right-click, Menu key"), graph},
      {tr("Next match"), tr("Enter (in the find bar)"), find},
      {tr("Previous match"), tr("Shift+Enter (in the find bar)"), find},
      {tr("Close the find bar"), tr("Esc (in the find bar)"), find},
  };
}

QString aboutText() {
  return QCoreApplication::translate("About",
                                     "<h3>Lattice Studio %1</h3>"
                                     "<p>Lowers sparse 3D convolution models into portable lattice artifacts and "
                                     "shows every step.</p>"
                                     "<table>"
                                     "<tr><td>Qt</td><td>%2 (built with %3)</td></tr>"
                                     "<tr><td>LibTorch</td><td>%4</td></tr>"
                                     "<tr><td>Graphviz</td><td>%5</td></tr>"
                                     "</table>"
                                     "<p>License: none chosen yet; all rights reserved by the Lattice Studio authors.</p>")
      .arg(QCoreApplication::applicationVersion(), QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR),
           QString::fromStdString(libtorchVersion()), QString::fromStdString(graphvizVersion()));
}

void showAboutDialog(QWidget* parent) {
  QMessageBox::about(parent, QCoreApplication::translate("About", "About Lattice Studio"), aboutText());
}

void nameShortcutsInToolTips(const QList<QAction*>& actions) {
  for (QAction* a : actions)
    if (!a->shortcut().isEmpty())
      a->setToolTip(a->text().remove(QLatin1Char('&')).remove(QStringLiteral("…")) + QStringLiteral(" (") +
                    a->shortcut().toString(QKeySequence::NativeText) + QLatin1Char(')'));
}

} // namespace lattice::studio
