// InputSpecEditor: the Inputs table with its tool row, over an InputSpecModel bound to the
// session; InputSpecDialog wraps it for Debug ▸ Edit Inputs… and the Interpreter panel. The
// editor keeps no state of its own: the enabled flags and the hint are recomputed from the
// model and the session whenever either changes.

#include "panels/InputSpecEditor.h"

#include "StudioSession.h"
#include "WindowFit.h"
#include "numeric/RunInputsEditor.h"
#include "panels/InputSpecModel.h"

#include <QAction>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>

#include <functional>

namespace lattice::studio {

namespace {

/// Why a value typed into `column` was refused.
QString refusal(const InputSpecModel& model, const QModelIndex& index, const QString& text) {
  switch (index.column()) {
  case InputSpecModel::NameColumn:
    return model.nameError(index.row(), text.trimmed());
  case InputSpecModel::ChannelsColumn: {
    bool ok = false;
    const qlonglong channels = text.trimmed().toLongLong(&ok);
    if (ok && channels > 0) {
      const QString why = model.channelsError(index.row(), channels);
      if (!why.isEmpty()) return why;
    }
    return QStringLiteral("'%1' is not a channel count: a positive integer, or ? for unknown").arg(text);
  }
  case InputSpecModel::StrideColumn:
    return QStringLiteral("'%1' is not a stride: one positive integer, or three such as 1, 2, 1").arg(text);
  case InputSpecModel::TypeColumn:
    return QStringLiteral("'%1' is not a tensor type such as tensor<?x3xf32>").arg(text);
  default:
    return QStringLiteral("'%1' is not accepted here").arg(text);
  }
}

/// Combo boxes for the choice columns, line edits elsewhere; a refused value is reported.
class InputSpecDelegate : public QStyledItemDelegate {
public:
  InputSpecDelegate(std::function<void(const QString&)> refused, QObject* parent)
      : QStyledItemDelegate(parent), m_refused(std::move(refused)) {}

  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                        const QModelIndex& index) const override {
    const QStringList choices = InputSpecModel::choices(index.column());
    if (choices.isEmpty()) return QStyledItemDelegate::createEditor(parent, option, index);
    auto* box = new QComboBox(parent);
    box->addItems(choices);
    return box;
  }
  void setEditorData(QWidget* editor, const QModelIndex& index) const override {
    if (auto* box = qobject_cast<QComboBox*>(editor))
      box->setCurrentText(index.data(Qt::EditRole).toString());
    else
      QStyledItemDelegate::setEditorData(editor, index);
  }
  void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override {
    QString text;
    if (auto* box = qobject_cast<QComboBox*>(editor))
      text = box->currentText();
    else
      text = editor->property("text").toString();
    if (text == index.data(Qt::EditRole).toString()) return; // unchanged: no undo step
    if (!model->setData(index, text) && m_refused) {
      if (auto* specs = qobject_cast<InputSpecModel*>(model)) m_refused(refusal(*specs, index, text));
    }
  }

private:
  std::function<void(const QString&)> m_refused;
};

} // namespace

InputSpecEditor::InputSpecEditor(StudioSession* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_model(new InputSpecModel(session, this)),
      m_view(new QTableView(this)), m_hint(new QLabel(this)) {
  setObjectName(QStringLiteral("inputSpecEditor"));

  QAction* add = makeAction(QStringLiteral("add"), QStringLiteral("Add Input"), QKeySequence(Qt::Key_Insert),
                            QStringLiteral("add an input after the selected one (or at the end)"));
  QAction* remove = makeAction(QStringLiteral("remove"), QStringLiteral("Remove"),
                               QKeySequence(Qt::Key_Delete), QStringLiteral("remove the selected input"));
  QAction* up = makeAction(QStringLiteral("up"), QStringLiteral("Move Up"),
                           QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Up),
                           QStringLiteral("move the selected input one place earlier in the signature"));
  QAction* down = makeAction(QStringLiteral("down"), QStringLiteral("Move Down"),
                             QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Down),
                             QStringLiteral("move the selected input one place later in the signature"));
  // Fixed texts (the step's description goes to the tooltip), so the tool row keeps its width.
  QUndoStack* stack = session->undoStack();
  QAction* undo = makeAction(QStringLiteral("undo"), QStringLiteral("Undo"), QKeySequence::Undo,
                             QStringLiteral("undo the last edit of the model (inputs or leaf decisions)"));
  QAction* redo =
      makeAction(QStringLiteral("redo"), QStringLiteral("Redo"),
                 QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QStringLiteral("redo the edit"));
  connect(undo, &QAction::triggered, stack, &QUndoStack::undo);
  connect(redo, &QAction::triggered, stack, &QUndoStack::redo);
  auto followStack = [stack, undo, redo] {
    undo->setEnabled(stack->canUndo());
    redo->setEnabled(stack->canRedo());
    undo->setToolTip(stack->canUndo()
                         ? QStringLiteral("Undo %1 (%2)")
                               .arg(stack->undoText(), undo->shortcut().toString(QKeySequence::NativeText))
                         : QStringLiteral("nothing to undo"));
    redo->setToolTip(stack->canRedo()
                         ? QStringLiteral("Redo %1 (%2)")
                               .arg(stack->redoText(), redo->shortcut().toString(QKeySequence::NativeText))
                         : QStringLiteral("nothing to redo"));
  };
  connect(stack, &QUndoStack::indexChanged, this, followStack);
  connect(stack, &QUndoStack::canUndoChanged, this, followStack);
  connect(stack, &QUndoStack::canRedoChanged, this, followStack);
  followStack();
  QAction* reset = makeAction(QStringLiteral("reset"), QStringLiteral("Reset"), QKeySequence(),
                              QStringLiteral("back to the archive's example inputs"));

  connect(add, &QAction::triggered, this, [this] {
    const int current = currentRow();
    const int row = m_model->addInput(current < 0 ? -1 : current + 1);
    setCurrentRow(row);
  });
  connect(remove, &QAction::triggered, this, [this] {
    const int row = currentRow();
    if (!m_model->removeInput(row)) return;
    setCurrentRow(qMin(row, m_model->rowCount() - 1));
  });
  connect(up, &QAction::triggered, this, [this] {
    const int row = currentRow();
    if (m_model->moveInput(row, -1)) setCurrentRow(row - 1);
  });
  connect(down, &QAction::triggered, this, [this] {
    const int row = currentRow();
    if (m_model->moveInput(row, 1)) setCurrentRow(row + 1);
  });
  connect(reset, &QAction::triggered, session, &StudioSession::resetInputSpecs);

  auto* tools = new QHBoxLayout();
  tools->setContentsMargins(0, 0, 0, 0);
  for (QAction* a : {add, remove, up, down, undo, redo, reset}) {
    auto* button = new QToolButton(this);
    button->setDefaultAction(a);
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    tools->addWidget(button);
    if (a == down || a == redo) tools->addSpacing(8);
  }
  tools->addStretch(1);

  m_view->setObjectName(QStringLiteral("inputSpecTable"));
  m_view->setModel(m_model);
  m_view->setItemDelegate(new InputSpecDelegate(
      [this](const QString& why) {
        m_hint->setText(why);
        m_hint->setStyleSheet(QStringLiteral("color: #b71c1c"));
      },
      m_view));
  m_view->verticalHeader()->setVisible(false);
  m_view->horizontalHeader()->setStretchLastSection(true);
  m_view->setEditTriggers(QAbstractItemView::AllEditTriggers);
  m_view->setSelectionMode(QAbstractItemView::SingleSelection);
  m_view->setMinimumHeight(110);

  m_hint->setWordWrap(true);
  m_hint->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(tools);
  layout->addWidget(m_view, 1);
  layout->addWidget(m_hint);

  connect(m_model, &QAbstractItemModel::modelReset, this, &InputSpecEditor::updateState);
  connect(m_model, &QAbstractItemModel::rowsInserted, this, &InputSpecEditor::updateState);
  connect(m_model, &QAbstractItemModel::rowsRemoved, this, &InputSpecEditor::updateState);
  connect(m_model, &QAbstractItemModel::rowsMoved, this, &InputSpecEditor::updateState);
  connect(m_model, &QAbstractItemModel::dataChanged, this, &InputSpecEditor::updateState);
  connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
          &InputSpecEditor::updateState);
  connect(session, &StudioSession::modelLoaded, this, &InputSpecEditor::updateState);
  updateState();
}

QAction* InputSpecEditor::makeAction(const QString& id, const QString& text, const QKeySequence& key,
                                     const QString& tip) {
  auto* a = new QAction(text, this);
  a->setObjectName(id);
  a->setShortcut(key);
  a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  a->setToolTip(key.isEmpty() ? tip
                              : QStringLiteral("%1 (%2)").arg(tip, key.toString(QKeySequence::NativeText)));
  addAction(a); // its shortcut works while the editor has the focus
  m_actions << a;
  return a;
}

QAction* InputSpecEditor::action(const QString& id) const {
  for (QAction* a : m_actions)
    if (a->objectName() == id) return a;
  return nullptr;
}

QString InputSpecEditor::hintText() const {
  return m_hint->text();
}

int InputSpecEditor::currentRow() const {
  const QModelIndex current = m_view->currentIndex();
  return current.isValid() ? current.row() : -1;
}

void InputSpecEditor::setCurrentRow(int row) {
  if (row < 0 || row >= m_model->rowCount()) {
    m_view->setCurrentIndex(QModelIndex());
    return;
  }
  const int column = m_view->currentIndex().isValid() ? m_view->currentIndex().column() : 0;
  m_view->setCurrentIndex(m_model->index(row, column));
  m_view->scrollTo(m_model->index(row, 0));
}

void InputSpecEditor::updateState() {
  const bool hasModel = m_session->model() != nullptr;
  const int row = currentRow();
  const int rows = m_model->rowCount();
  action(QStringLiteral("add"))->setEnabled(hasModel);
  action(QStringLiteral("remove"))->setEnabled(row >= 0);
  action(QStringLiteral("up"))->setEnabled(row > 0);
  action(QStringLiteral("down"))->setEnabled(row >= 0 && row + 1 < rows);
  action(QStringLiteral("reset"))->setEnabled(hasModel && m_session->inputSpecsEdited());

  m_hint->setStyleSheet(QString());
  const QStringList forward = m_session->forwardInputNames();
  if (!hasModel) {
    m_hint->setText(QStringLiteral("No model is open."));
  } else if (rows == 0) {
    m_hint->setText(
        QStringLiteral("The model has no example inputs (a TorchScript file carries none): add one row per "
                       "forward input%1 with Add Input, then set its kind, dtype and channels.")
            .arg(forward.isEmpty() ? QString()
                                   : QStringLiteral(" (%1)").arg(forward.join(QStringLiteral(", ")))));
    m_hint->setStyleSheet(QStringLiteral("color: #b71c1c"));
  } else {
    QString text = QStringLiteral("lattice-cli lower %1").arg(m_model->cliArguments());
    if (rows > forward.size()) {
      text = QStringLiteral("The forward takes %1 input%2; the table has %3. ")
                 .arg(forward.size())
                 .arg(forward.size() == 1 ? QString() : QStringLiteral("s"))
                 .arg(rows) +
             text;
      m_hint->setStyleSheet(QStringLiteral("color: #b71c1c"));
    }
    // A channel count the first layer cannot take (set before the model's needs were known,
    // or remembered from an earlier version of the model).
    for (int r = 0; r < rows; ++r) {
      const InputSpec& spec = m_model->specs()[static_cast<std::size_t>(r)];
      if (!spec.channels) continue;
      const QString why = m_model->channelsError(r, *spec.channels);
      if (why.isEmpty()) continue;
      text = why + QStringLiteral(". ") + text;
      m_hint->setStyleSheet(QStringLiteral("color: #b71c1c"));
      break;
    }
    m_hint->setText(text);
  }
}

InputSpecDialog::InputSpecDialog(StudioSession* session, NumericRun* run, QWidget* parent)
    : QDialog(parent), m_editor(new InputSpecEditor(session, this)) {
  setObjectName(QStringLiteral("inputSpecDialog"));
  setWindowTitle(QStringLiteral("Inputs"));
  auto* layout = new QVBoxLayout(this);
  auto* specs = new QGroupBox(QStringLiteral("Input specs"), this);
  auto* specsLayout = new QVBoxLayout(specs);
  auto* label =
      new QLabel(QStringLiteral("The model's inputs in the forward signature's order, for the "
                                "interpreter (F5), File ▸ Export Artifact… and Run on Inputs; changes "
                                "apply at once and are remembered for this model."),
                 specs);
  label->setWordWrap(true);
  specsLayout->addWidget(label);
  specsLayout->addWidget(m_editor, 1);
  layout->addWidget(specs, 1);
  if (run) {
    auto* values = new QGroupBox(QStringLiteral("Values for Run on Inputs and numeric stepping"), this);
    values->setObjectName(QStringLiteral("runInputsGroup"));
    auto* valuesLayout = new QVBoxLayout(values);
    m_runInputs = new RunInputsEditor(run, values);
    valuesLayout->addWidget(m_runInputs);
    layout->addWidget(values);
  }
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
  layout->addWidget(buttons);
  // The wrapped labels' height depends on the width: ask the layout for the height at this width,
  // or the rows below them are squeezed; then the size it was left at, within the screen.
  const int width = std::max(680, minimumSizeHint().width());
  const int needed = layout->hasHeightForWidth() ? layout->totalHeightForWidth(width) : sizeHint().height();
  restoreWindowSize(this, QString::fromLatin1(run ? "inputs" : "inputSpecs"), QSize(width, std::max(run ? 560 : 320, needed)));
}

void InputSpecDialog::hideEvent(QHideEvent* event) {
  saveWindowSize(this, QString::fromLatin1(m_runInputs ? "inputs" : "inputSpecs"));
  QDialog::hideEvent(event);
}

InputSpecDialog* showInputSpecDialog(StudioSession* session, QWidget* parent, bool values) {
  QWidget* window = parent ? parent->window() : nullptr;
  InputSpecDialog* dialog = nullptr;
  if (window)
    for (InputSpecDialog* d : window->findChildren<InputSpecDialog*>())
      if (d->editor()->model()->session() == session) dialog = d;
  if (!dialog) {
    NumericRun* run = nullptr;
    if (window)
      for (NumericRun* r : window->findChildren<NumericRun*>())
        if (r->session() == session) run = r;
    dialog = new InputSpecDialog(session, run, window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
  }
  dialog->show();
  dialog->raise();
  dialog->activateWindow();
  if (values && dialog->runInputs())
    dialog->runInputs()->setFocus();
  else
    dialog->editor()->view()->setFocus();
  return dialog;
}

} // namespace lattice::studio
