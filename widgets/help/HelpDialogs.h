#pragma once
/// \file The Help menu's windows: Keyboard Shortcuts (every action of the window with its key,
/// filtered as you type) and About (the versions of Lattice Studio and the libraries it runs on,
/// and the license).

#include <QDialog>
#include <QList>
#include <QString>

class QAction;
class QLineEdit;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;

namespace lattice::studio {

/// Help ▸ Keyboard Shortcuts: a table of Action, Shortcut and Menu, one row per action that has a
/// text, then the keys and mouse gestures widgets handle themselves (otherKeys()), sorted by menu
/// then action; typing in the search field keeps the rows whose action, shortcut or menu contains
/// the text (case-insensitive).
class ShortcutsDialog : public QDialog {
public:
  /// One row that is not an action: what it does, the key or gesture, where it works.
  struct KeyRow {
    QString action;
    QString keys;
    QString where;
  };
  /// The keys and gestures no action stands for: the graph's zoom keys and mouse, the find
  /// bar's keys.
  static QList<KeyRow> otherKeys();

  /// `actions` as the window has them; each row's menu is the first menu that lists the action.
  ShortcutsDialog(const QList<QAction*>& actions, QWidget* parent = nullptr);

  QLineEdit* searchField() const { return m_search; }
  /// The filtered, sorted rows the table shows.
  QSortFilterProxyModel* rows() const { return m_proxy; }
  QTableView* table() const { return m_table; }

  enum Column { ActionColumn, ShortcutColumn, MenuColumn };

private:
  QStandardItemModel* m_model;
  QSortFilterProxyModel* m_proxy;
  QLineEdit* m_search;
  QTableView* m_table;
};

/// Gives each of `actions` that has a shortcut a tooltip naming it ("Step Over (F10)"), as
/// debuggers' tool bars do.
void nameShortcutsInToolTips(const QList<QAction*>& actions);

/// The About text: version, Qt (built and running), LibTorch and Graphviz versions, license.
QString aboutText();

/// Help ▸ About Lattice Studio.
void showAboutDialog(QWidget* parent);

} // namespace lattice::studio
