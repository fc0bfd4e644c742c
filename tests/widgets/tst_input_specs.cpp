// Inputs for every model. A model without example inputs — as a TorchScript
// file is: here `example:chain:2` written as an .ltfx archive with its example inputs removed —
// refuses F5 with a message that says where to add them, and after one row is added in the
// Inputs table (x, sparse, f32, 16 channels: the chain's own input) the interpreter runs to the
// graph.mlir that `example:chain:2` itself lowers to, and File ▸ Export writes the same bytes as
// saveLatticeModelArtifact of the untouched example and as `lattice-cli lower` given the table's
// `--input` arguments. The table (InputSpecModel bound to the session) adds, removes and moves
// rows with row signals (QAbstractItemModelTester watching), refuses invalid names and values,
// stays in step across two views, undoes and redoes every edit, and is remembered per model
// across sessions (QSettings in a temporary directory).

#include "MainWindow.h"
#include "StudioSession.h"
#include "lowering/Lowering.h"
#include "model/Archive.h"
#include "model/Examples.h"
#include "model/LoadModel.h"
#include "numeric/RunInputsEditor.h"
#include "panels/ExportDialog.h"
#include "panels/InputSpecEditor.h"
#include "panels/InputSpecModel.h"
#include "panels/InterpreterPanel.h"
#include "panels/Panels.h"

#include "WidgetTestSupport.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QCryptographicHash>
#include <QDir>
#include <QProcess>
#include <QSettings>
#include <QTableView>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

using lattice::InputSpec;
using lattice::studio::ExportDialog;
using lattice::studio::InputSpecDialog;
using lattice::studio::InputSpecEditor;
using lattice::studio::InputSpecModel;
using lattice::studio::InterpreterPanel;
using lattice::studio::MainWindow;
using lattice::studio::StudioSession;
using State = StudioSession::InterpreterState;

using namespace lattice::widgettest;

namespace {

QStringList names(const std::vector<InputSpec>& specs) {
  QStringList out;
  for (const InputSpec& s : specs)
    out << QString::fromStdString(s.name);
  return out;
}

/// Writes example:chain:2 without example inputs into `dir`/name (an .ltfx archive).
QString writeChainWithoutInputs(const QString& dir, const QString& name = QStringLiteral("noinputs.ltfx")) {
  lattice::Expected<lattice::Model> model = lattice::loadModel("example:chain:2");
  if (!model) return {};
  model->exampleInputs.clear();
  const QString path = QDir(dir).filePath(name);
  if (!lattice::writeArchive(*model, path.toStdString())) return {};
  return path;
}

/// Sets row `row` of `model` to the chain's input: sparse f32 with 16 channels.
bool makeChainInput(InputSpecModel& model, int row) {
  return model.setData(model.index(row, InputSpecModel::KindColumn), QStringLiteral("sparse")) &&
         model.setData(model.index(row, InputSpecModel::DTypeColumn), QStringLiteral("f32")) &&
         model.setData(model.index(row, InputSpecModel::ChannelsColumn), QStringLiteral("16"));
}

/// What `lattice-cli lower example:chain:2` writes, from a fresh model: the expectation.
bool writeReference(const QString& dir) {
  lattice::Expected<lattice::Model> model = lattice::loadModel("example:chain:2");
  return model && lattice::saveLatticeModelArtifact(*model, dir.toStdString()).ok();
}

} // namespace

class TestInputSpecs : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase();
  void init();
  void addRemoveMoveWithRowSignals();
  void invalidEditsAreRefused();
  void undoAndRedoEveryEdit();
  void f5WithoutInputsSaysWhatToDo();
  void addedRowStartsTheInterpreter();
  void exportUsesTheSameRows();
  void cliMeansTheSameByASpec();
  void rememberedPerModelAcrossSessions();
  void exportDialogsOldSettingsAreTakenOver();
  void windowF5AfterEditInputs();
  void torchScriptFileRunsAfterAddingAnInput();

private:
  QTemporaryDir m_settingsDir;
  QTemporaryDir m_data;
  QString m_noInputs;
};

void TestInputSpecs::initTestCase() {
  QVERIFY(m_settingsDir.isValid());
  QVERIFY(m_data.isValid());
  QCoreApplication::setOrganizationName(QStringLiteral("LatticeTests"));
  QCoreApplication::setApplicationName(QStringLiteral("tst_input_specs"));
  QSettings::setDefaultFormat(QSettings::IniFormat);
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
  m_noInputs = writeChainWithoutInputs(m_data.path());
  QVERIFY(!m_noInputs.isEmpty());
}

void TestInputSpecs::init() {
  QSettings().clear(); // nothing remembered from another test
}

void TestInputSpecs::addRemoveMoveWithRowSignals() {
  StudioSession session;
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:2")));
  InputSpecModel model(&session);
  InputSpecModel other(&session); // a second view of the same list (the export dialog's, say)
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester otherTester(&other, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(names(model.specs()), QStringList{QStringLiteral("x")});
  QVERIFY(!model.isNameEditable(0)); // the archive's input keeps its name
  QVERIFY(!(model.flags(model.index(0, InputSpecModel::NameColumn)) & Qt::ItemIsEditable));

  QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
  QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
  QSignalSpy moved(&model, &QAbstractItemModel::rowsMoved);
  QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
  QSignalSpy changed(&session, &StudioSession::inputSpecsChanged);

  // The forward takes only x, which is used: the next name is `input`, then `input_1`.
  QCOMPARE(model.addInput(), 1);
  QCOMPARE(model.addInput(1), 1); // before the first added one
  QCOMPARE(names(model.specs()),
           (QStringList{QStringLiteral("x"), QStringLiteral("input_1"), QStringLiteral("input")}));
  QCOMPARE(inserted.count(), 2);
  QCOMPARE(reset.count(), 0);
  QCOMPARE(changed.count(), 2);
  QCOMPARE(names(session.inputSpecs()), names(model.specs()));
  QCOMPARE(names(other.specs()), names(model.specs())); // the other view followed
  QCOMPARE(other.rowCount(), 3);
  // A new row: sparse f32 (the dtype of the last sparse row), channels unknown, stride 1.
  const InputSpec& added = model.specs()[1];
  QCOMPARE(added.kind, InputSpec::Kind::Sparse);
  QCOMPARE(added.dtype, std::string("f32"));
  QVERIFY(!added.channels);
  QCOMPARE(added.stride, (std::array<int64_t, 3>{1, 1, 1}));
  QVERIFY(model.isNameEditable(1));
  QVERIFY(model.setData(model.index(1, InputSpecModel::NameColumn), QStringLiteral("features")));

  // Reorder: input up to the top, in two moves.
  QVERIFY(model.moveInput(2, -1));
  QVERIFY(model.moveInput(1, -1));
  QCOMPARE(names(model.specs()),
           (QStringList{QStringLiteral("input"), QStringLiteral("x"), QStringLiteral("features")}));
  QCOMPARE(moved.count(), 2);
  QVERIFY(!model.moveInput(0, -1)); // edges
  QVERIFY(!model.moveInput(2, 1));
  QVERIFY(model.moveInput(0, 1));
  QCOMPARE(names(model.specs()),
           (QStringList{QStringLiteral("x"), QStringLiteral("input"), QStringLiteral("features")}));
  QCOMPARE(names(other.specs()), names(model.specs()));
  QCOMPARE(names(session.inputSpecs()), names(model.specs()));
  QCOMPARE(names(session.exportOptions().inputs.value_or(std::vector<InputSpec>{})), names(model.specs()));

  QVERIFY(model.removeInput(1));
  QVERIFY(!model.removeInput(5));
  QCOMPARE(names(session.inputSpecs()), (QStringList{QStringLiteral("x"), QStringLiteral("features")}));
  QCOMPARE(removed.count(), 1);
  QCOMPARE(reset.count(), 0); // row signals all along, never a reset for the table's own edits
  QVERIFY(session.inputSpecsEdited());

  // The same through the editor's buttons, which act on the selected row.
  InputSpecEditor editor(&session);
  QAbstractItemModelTester editorTester(editor.model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
  editor.setCurrentRow(0);
  QVERIFY(!editor.action(QStringLiteral("up"))->isEnabled());
  editor.action(QStringLiteral("down"))->trigger();
  QCOMPARE(names(session.inputSpecs()), (QStringList{QStringLiteral("features"), QStringLiteral("x")}));
  QCOMPARE(editor.currentRow(), 1);                // the moved row stays selected
  editor.action(QStringLiteral("add"))->trigger(); // after the selected row
  QCOMPARE(names(session.inputSpecs()),
           (QStringList{QStringLiteral("features"), QStringLiteral("x"), QStringLiteral("input")}));
  QCOMPARE(editor.currentRow(), 2);
  editor.setCurrentRow(0);
  editor.action(QStringLiteral("remove"))->trigger();
  QCOMPARE(names(session.inputSpecs()), (QStringList{QStringLiteral("x"), QStringLiteral("input")}));
  QVERIFY(editor.action(QStringLiteral("reset"))->isEnabled());
  editor.action(QStringLiteral("reset"))->trigger();
  QCOMPARE(names(session.inputSpecs()), QStringList{QStringLiteral("x")});
  QVERIFY(!session.inputSpecsEdited());
  QVERIFY(!editor.action(QStringLiteral("reset"))->isEnabled());
  QCOMPARE(names(model.specs()), QStringList{QStringLiteral("x")});
  QVERIFY2(editor.hintText() == QStringLiteral("lattice-cli lower --input x:sparse:f32:16"),
           qPrintable(editor.hintText()));
}

void TestInputSpecs::invalidEditsAreRefused() {
  StudioSession session;
  QVERIFY(openAndWait(session, m_noInputs));
  InputSpecModel model(&session);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(model.rowCount(), 0);
  QCOMPARE(model.addInput(), 0);
  QCOMPARE(model.addInput(), 1);
  const QModelIndex name0 = model.index(0, InputSpecModel::NameColumn);
  const QModelIndex name1 = model.index(1, InputSpecModel::NameColumn);
  // The forward's own parameter name first, then `input`.
  QCOMPARE(name0.data().toString(), QStringLiteral("x"));
  QCOMPARE(name1.data().toString(), QStringLiteral("input"));
  QVERIFY(model.isNameEditable(0)); // no archive inputs: every name is the user's
  const int steps = session.inputUndoStack()->count();
  const auto before = names(session.inputSpecs());
  for (const QString& bad : {QString(), QStringLiteral("  "), QStringLiteral("1x"), QStringLiteral("a b"),
                             QStringLiteral("x:y"), QStringLiteral("x")}) // "x": row 0's
    QVERIFY2(!model.setData(name1, bad), qPrintable(bad));
  QVERIFY(!model.nameError(1, QStringLiteral("x")).isEmpty());
  QVERIFY(model.nameError(0, QStringLiteral("x")).isEmpty()); // its own name
  QVERIFY(!model.setData(model.index(0, InputSpecModel::ChannelsColumn), QStringLiteral("0")));
  QVERIFY(!model.setData(model.index(0, InputSpecModel::ChannelsColumn), QStringLiteral("-3")));
  QVERIFY(!model.setData(model.index(0, InputSpecModel::StrideColumn), QStringLiteral("1, 0, 1")));
  QVERIFY(!model.setData(model.index(0, InputSpecModel::DTypeColumn), QStringLiteral("i8")));
  QVERIFY(!model.setData(model.index(0, InputSpecModel::KindColumn), QStringLiteral("ragged")));
  QVERIFY(!(model.flags(model.index(0, InputSpecModel::TypeColumn)) & Qt::ItemIsEditable)); // sparse
  QCOMPARE(session.inputUndoStack()->count(), steps); // nothing reached the session
  QCOMPARE(names(session.inputSpecs()), before);
  QVERIFY(!session.inputSpecs()[0].channels);

  QVERIFY(model.setData(name1, QStringLiteral("_points2")));
  QVERIFY(model.setData(model.index(1, InputSpecModel::KindColumn), QStringLiteral("dense")));
  QVERIFY(!model.setData(model.index(1, InputSpecModel::TypeColumn), QStringLiteral("tensor<?x3xf32")));
  QVERIFY(model.setData(model.index(1, InputSpecModel::TypeColumn), QStringLiteral("tensor<?x3xf32>")));
  QCOMPARE(session.inputSpecs()[1].type, std::string("tensor<?x3xf32>"));
  QCOMPARE(session.inputSpecs()[1].name, std::string("_points2"));
  QCOMPARE(model.cliArguments(),
           QStringLiteral("--input 'x:sparse:f32:?' --input '_points2:dense:tensor<?x3xf32>'"));

  // The editor says why a typed value was refused.
  InputSpecEditor editor(&session);
  QTableView* view = editor.view();
  QAbstractItemDelegate* delegate = view->itemDelegate();
  const QModelIndex channels = editor.model()->index(0, InputSpecModel::ChannelsColumn);
  QStyleOptionViewItem option;
  QWidget* line = delegate->createEditor(view->viewport(), option, channels);
  QVERIFY(line);
  line->setProperty("text", QStringLiteral("many"));
  delegate->setModelData(line, editor.model(), channels);
  QVERIFY2(editor.hintText().contains(QStringLiteral("'many' is not a channel count")),
           qPrintable(editor.hintText()));
  QVERIFY(!session.inputSpecs()[0].channels);
  delete line;
}

void TestInputSpecs::undoAndRedoEveryEdit() {
  StudioSession session;
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:2")));
  InputSpecModel model(&session);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QUndoStack* undo = session.inputUndoStack();
  QCOMPARE(undo->count(), 0);
  QVERIFY(model.setData(model.index(0, InputSpecModel::StrideColumn), QStringLiteral("2")));
  model.addInput();
  QVERIFY(model.moveInput(1, -1));
  QCOMPARE(undo->count(), 3);
  const auto edited = session.inputSpecs();
  QCOMPARE(names(edited), (QStringList{QStringLiteral("input"), QStringLiteral("x")}));

  undo->undo(); // the move
  QCOMPARE(names(model.specs()), (QStringList{QStringLiteral("x"), QStringLiteral("input")}));
  undo->undo(); // the add
  QCOMPARE(names(model.specs()), QStringList{QStringLiteral("x")});
  QCOMPARE(session.inputSpecs()[0].stride, (std::array<int64_t, 3>{2, 2, 2}));
  session.startInterpreter();
  QVERIFY2(session.interpreterState() == State::Paused, qPrintable(session.lastError()));
  undo->undo();                                            // the stride
  QCOMPARE(session.interpreterState(), State::NotStarted); // the inputs changed: a new start
  QCOMPARE(session.inputSpecs()[0].stride, (std::array<int64_t, 3>{1, 1, 1}));
  QVERIFY(!session.inputSpecsEdited());
  QCOMPARE(model.index(0, InputSpecModel::StrideColumn).data().toString(), QStringLiteral("1, 1, 1"));
  undo->redo();
  undo->redo();
  undo->redo();
  QCOMPARE(names(session.inputSpecs()), names(edited));
  QCOMPARE(session.inputSpecs()[1].stride, (std::array<int64_t, 3>{2, 2, 2}));
  QCOMPARE(names(model.specs()), names(edited));

  // Opening a model starts a new history.
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:1")));
  QCOMPARE(undo->count(), 0);
  QCOMPARE(names(model.specs()), QStringList{QStringLiteral("x")});
}

void TestInputSpecs::f5WithoutInputsSaysWhatToDo() {
  StudioSession session;
  InterpreterPanel panel(&session);
  QVERIFY(openAndWait(session, m_noInputs));
  QVERIFY(session.model()->exampleInputs.empty());
  QVERIFY(session.inputSpecs().empty());
  QCOMPARE(session.forwardInputNames(), QStringList{QStringLiteral("x")});
  QSignalSpy failed(&session, &StudioSession::interpreterFailed);
  panel.action(QStringLiteral("start"))->trigger();
  QCOMPARE(session.interpreterState(), State::Failed);
  QCOMPARE(failed.count(), 1);
  const QString message = session.lastError();
  QVERIFY2(!message.contains(QStringLiteral("example_inputs must be a non-empty tuple")),
           qPrintable(message));
  QVERIFY2(message.startsWith(QStringLiteral("noinputs.ltfx has no example inputs")), qPrintable(message));
  QVERIFY2(message.contains(QStringLiteral("add one row per forward input (x) in the Inputs table")),
           qPrintable(message));
  QVERIFY2(message.contains(QStringLiteral("Debug ▸ Edit Inputs…")), qPrintable(message));
  QVERIFY2(
      panel.stateText().startsWith(QStringLiteral("could not start: noinputs.ltfx has no example inputs")),
      qPrintable(panel.stateText()));
  QCOMPARE(panel.action(QStringLiteral("inputs"))->text(), QStringLiteral("Inputs… (none)"));

  // The export dialog's table says the same, and its export refuses at once.
  ExportDialog dialog(&session);
  QCOMPARE(dialog.inputModel()->rowCount(), 0);
  QVERIFY2(dialog.inputEditor()->hintText().contains(QStringLiteral("add one row per forward input (x)")),
           qPrintable(dialog.inputEditor()->hintText()));
  auto options = dialog.exportOptions();
  QVERIFY(!options.ok());
  QVERIFY2(QString::fromStdString(options.message()).contains(QStringLiteral("Inputs table")),
           options.message().c_str());
}

void TestInputSpecs::addedRowStartsTheInterpreter() {
  StudioSession session;
  InterpreterPanel panel(&session);
  QVERIFY(openAndWait(session, m_noInputs));
  // Inputs… in the interpreter panel opens the Inputs dialog; add the chain's input there.
  panel.action(QStringLiteral("inputs"))->trigger();
  auto* dialog = panel.window()->findChild<InputSpecDialog*>();
  QVERIFY(dialog);
  QVERIFY(dialog->isVisible());
  InputSpecEditor* editor = dialog->editor();
  QAbstractItemModelTester tester(editor->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(editor->action(QStringLiteral("add"))->isEnabled());
  editor->action(QStringLiteral("add"))->trigger();
  QCOMPARE(editor->model()->rowCount(), 1);
  QVERIFY(makeChainInput(*editor->model(), 0));
  QCOMPARE(panel.action(QStringLiteral("inputs"))->text(), QStringLiteral("Inputs…"));
  // Inputs… again raises the same dialog.
  panel.action(QStringLiteral("inputs"))->trigger();
  QCOMPARE(panel.window()->findChildren<InputSpecDialog*>().size(), 1);

  panel.action(QStringLiteral("start"))->trigger();
  QVERIFY2(session.interpreterState() == State::Paused, qPrintable(session.lastError()));
  QCOMPARE(session.currentNode(), QStringLiteral("x"));
  session.setRunSliceBudget(1000);
  panel.action(QStringLiteral("continue"))->trigger();
  QVERIFY(waitFor([&] { return session.interpreterState() != State::Paused; }));
  QVERIFY2(session.interpreterState() == State::Finished, qPrintable(session.lastError()));
  QCOMPARE(session.executedNodes(), chainPrefix(2) << QStringLiteral("output"));

  // The graph.mlir the chain example lowers to with its own example input.
  auto text = session.lowering()->builder->toMlir();
  QVERIFY(text.ok());
  QTemporaryDir out;
  QVERIFY(writeReference(out.filePath(QStringLiteral("ref.lattice"))));
  QCOMPARE(QByteArray::fromStdString(*text), readAll(out.filePath(QStringLiteral("ref.lattice/graph.mlir"))));
  dialog->close();
}

void TestInputSpecs::exportUsesTheSameRows() {
  StudioSession session;
  QVERIFY(openAndWait(session, m_noInputs));
  {
    InputSpecModel table(&session); // the interpreter's side
    table.addInput();
    QVERIFY(makeChainInput(table, 0));
  }
  ExportDialog dialog(&session);
  QAbstractItemModelTester tester(dialog.inputModel(),
                                  QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(dialog.inputModel()->rowCount(), 1);
  QCOMPARE(dialog.inputModel()->specs()[0].name, std::string("x"));
  QCOMPARE(*dialog.inputModel()->specs()[0].channels, int64_t(16));
  QTemporaryDir out;
  QVERIFY(writeReference(out.filePath(QStringLiteral("ref.lattice"))));
  const QString target = out.filePath(QStringLiteral("dialog.lattice"));
  dialog.setTargetDirectory(target);
  QSignalSpy exported(&dialog, &ExportDialog::artifactExported);
  QSignalSpy failed(&dialog, &ExportDialog::exportFailed);
  dialog.startExport();
  QVERIFY(waitFor([&] { return !exported.isEmpty() || !failed.isEmpty(); }));
  QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().front().toString()));
  QCOMPARE(readAll(target + QStringLiteral("/graph.mlir")),
           readAll(out.filePath(QStringLiteral("ref.lattice/graph.mlir"))));
  const QByteArray weights = readAll(target + QStringLiteral("/weights.safetensors"));
  QVERIFY(weights.size() > 10000);
  QVERIFY(weights == readAll(out.filePath(QStringLiteral("ref.lattice/weights.safetensors"))));

  // An edit in the dialog's table is the interpreter's too (a width the chain's first conv cannot
  // take, 8 for its 16, is refused: tst_input_channels).
  QVERIFY(dialog.inputModel()->setData(dialog.inputModel()->index(0, InputSpecModel::ChannelsColumn),
                                       QStringLiteral("?")));
  QVERIFY(!session.inputSpecs()[0].channels);
  QVERIFY(!session.exportOptions().inputs->at(0).channels);
}

void TestInputSpecs::cliMeansTheSameByASpec() {
  // The table's `--input` text, given to lattice-cli, writes the artifact the studio writes.
  const QString cli = QStringLiteral(LATTICE_CLI);
  QVERIFY2(QFileInfo::exists(cli), "build lattice-cli (the lattice_tests target builds it)");
  StudioSession session;
  QVERIFY(openAndWait(session, m_noInputs));
  InputSpecModel table(&session);
  table.addInput();
  QVERIFY(makeChainInput(table, 0));
  QVERIFY(table.setData(table.index(0, InputSpecModel::DTypeColumn), QStringLiteral("f16")));
  QCOMPARE(table.cliArguments(), QStringLiteral("--input x:sparse:f16:16"));
  QCOMPARE(InputSpecModel::cliText(table.specs()[0]), QStringLiteral("x:sparse:f16:16"));

  QTemporaryDir out;
  const QString studio = out.filePath(QStringLiteral("studio.lattice"));
  lattice::ExportOptions options = session.exportOptions();
  QVERIFY(lattice::saveLatticeModelArtifact(*session.model(), studio.toStdString(), options).ok());
  QProcess process;
  process.start(cli, {QStringLiteral("lower"), m_noInputs, QStringLiteral("--input"),
                      InputSpecModel::cliText(table.specs()[0]), QStringLiteral("-o"),
                      out.filePath(QStringLiteral("cli.lattice"))});
  QVERIFY(process.waitForFinished(120000));
  QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
  const QByteArray mlir = readAll(studio + QStringLiteral("/graph.mlir"));
  QVERIFY(mlir.contains("f16"));
  QCOMPARE(readAll(out.filePath(QStringLiteral("cli.lattice/graph.mlir"))), mlir);
  QVERIFY(readAll(out.filePath(QStringLiteral("cli.lattice/weights.safetensors"))) ==
          readAll(studio + QStringLiteral("/weights.safetensors")));

  // Stride and dense forms.
  InputSpec strided = table.specs()[0];
  strided.stride = {2, 1, 2};
  strided.channels.reset();
  QCOMPARE(InputSpecModel::cliText(strided), QStringLiteral("x:sparse:f16:?:2,1,2"));
  InputSpec dense;
  dense.name = "points";
  dense.kind = InputSpec::Kind::Dense;
  dense.type = "tensor<?x3xf32>";
  QCOMPARE(InputSpecModel::cliText(dense), QStringLiteral("points:dense:tensor<?x3xf32>"));
}

void TestInputSpecs::rememberedPerModelAcrossSessions() {
  QTemporaryDir other;
  const QString second = writeChainWithoutInputs(other.path());
  QVERIFY(!second.isEmpty());
  {
    StudioSession session;
    QVERIFY(openAndWait(session, m_noInputs));
    InputSpecModel table(&session);
    table.addInput();
    table.addInput();
    QVERIFY(makeChainInput(table, 0));
    QVERIFY(table.setData(table.index(1, InputSpecModel::NameColumn), QStringLiteral("extra")));
    QVERIFY(table.setData(table.index(1, InputSpecModel::KindColumn), QStringLiteral("dense")));
    QVERIFY(table.setData(table.index(1, InputSpecModel::TypeColumn), QStringLiteral("tensor<?x3xf16>")));
    QVERIFY(table.moveInput(1, -1));
  }
  // A new session on the same model, spelled differently, gets the list back.
  {
    StudioSession session;
    const QString spelled =
        QFileInfo(m_noInputs).path() + QStringLiteral("/./") + QFileInfo(m_noInputs).fileName();
    QVERIFY(openAndWait(session, spelled));
    const auto& specs = session.inputSpecs();
    QCOMPARE(names(specs), (QStringList{QStringLiteral("extra"), QStringLiteral("x")}));
    QCOMPARE(specs[0].kind, InputSpec::Kind::Dense);
    QCOMPARE(specs[0].type, std::string("tensor<?x3xf16>"));
    QCOMPARE(specs[1].kind, InputSpec::Kind::Sparse);
    QCOMPARE(specs[1].dtype, std::string("f32"));
    QCOMPARE(*specs[1].channels, int64_t(16));
    QCOMPARE(session.inputUndoStack()->count(), 0);
    QVERIFY(session.inputSpecsEdited());
    // Another model (same contents, another path) has nothing remembered.
    StudioSession fresh;
    QVERIFY(openAndWait(fresh, second));
    QVERIFY(fresh.inputSpecs().empty());
    // Removing the dense input is remembered too.
    InputSpecModel table(&session);
    QVERIFY(table.removeInput(0));
  }
  {
    StudioSession session;
    QVERIFY(openAndWait(session, m_noInputs));
    QCOMPARE(names(session.inputSpecs()), QStringList{QStringLiteral("x")});
    session.startInterpreter();
    QVERIFY2(session.interpreterState() == State::Paused, qPrintable(session.lastError()));
    // Back to the archive's (none): forgotten.
    session.resetInputSpecs();
    QVERIFY(session.inputSpecs().empty());
    QVERIFY(!QSettings().contains(StudioSession::inputSettingsGroup(m_noInputs) + QStringLiteral("/specs")));
  }
  {
    StudioSession session;
    QVERIFY(openAndWait(session, m_noInputs));
    QVERIFY(session.inputSpecs().empty());
  }
  // An example is keyed by its name: an edit of chain:2 is not chain:3's.
  {
    StudioSession session;
    QVERIFY(openAndWait(session, QStringLiteral("example:chain:2")));
    InputSpecModel table(&session);
    QVERIFY(table.setData(table.index(0, InputSpecModel::StrideColumn), QStringLiteral("2")));
  }
  StudioSession chain2, chain3;
  QVERIFY(openAndWait(chain2, QStringLiteral("example:chain:2")));
  QVERIFY(openAndWait(chain3, QStringLiteral("example:chain:3")));
  QCOMPARE(chain2.inputSpecs()[0].stride, (std::array<int64_t, 3>{2, 2, 2}));
  QCOMPARE(chain3.inputSpecs()[0].stride, (std::array<int64_t, 3>{1, 1, 1}));
}

// Older versions of the export dialog remembered edited inputs themselves (as many as the archive
// has), under export/models/<sha1 of the reference>: a session takes them over.
void TestInputSpecs::exportDialogsOldSettingsAreTakenOver() {
  const QString reference = QStringLiteral("example:chain:2");
  const QString old = QStringLiteral("export/models/") +
                      QString::fromLatin1(
                          QCryptographicHash::hash(reference.toUtf8(), QCryptographicHash::Sha1).toHex().left(16));
  {
    QSettings settings;
    settings.beginGroup(old);
    settings.setValue(QStringLiteral("reference"), reference);
    QVariantMap x;
    x[QStringLiteral("name")] = QStringLiteral("x");
    x[QStringLiteral("kind")] = QStringLiteral("sparse");
    x[QStringLiteral("dtype")] = QStringLiteral("f16");
    x[QStringLiteral("channels")] = 16;
    x[QStringLiteral("stride")] = QStringLiteral("2, 2, 2"); // the old dialog's strideText
    settings.setValue(QStringLiteral("inputs"), QVariantList{x});
  }
  StudioSession session;
  QVERIFY(openAndWait(session, reference));
  QCOMPARE(session.inputSpecs().size(), std::size_t(1));
  QCOMPARE(session.inputSpecs()[0].dtype, std::string("f16"));
  QCOMPARE(session.inputSpecs()[0].stride, (std::array<int64_t, 3>{2, 2, 2}));
  // Now remembered in the session's own place.
  QVERIFY(QSettings().contains(StudioSession::inputSettingsGroup(reference) + QStringLiteral("/specs")));
}

void TestInputSpecs::windowF5AfterEditInputs() {
  MainWindow window;
  window.resize(1200, 800);
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  StudioSession* session = window.session();
  QSignalSpy loaded(session, &StudioSession::modelLoaded);
  window.openModel(m_noInputs);
  QVERIFY(waitFor([&] { return !loaded.isEmpty(); }));
  QAction* f5 = window.action(QStringLiteral("debug.start"));
  QAction* inputs = window.action(QStringLiteral("debug.inputs"));
  QVERIFY(f5 && inputs);
  QCOMPARE(inputs->shortcut(), QKeySequence(QStringLiteral("Ctrl+I")));
  QVERIFY(waitFor([&] { return inputs->isEnabled(); }, 5000));
  f5->trigger();
  QCOMPARE(session->interpreterState(), State::Failed);
  QVERIFY2(session->lastError().contains(QStringLiteral("Inputs table")), qPrintable(session->lastError()));

  inputs->trigger(); // Debug ▸ Edit Inputs…
  auto* dialog = window.findChild<InputSpecDialog*>();
  QVERIFY(dialog);
  // One Inputs dialog: Debug ▸ Run Inputs… (Ctrl+Shift+I) raises the same one, whose values half
  // serves the window's numeric run.
  QAction* runInputs = window.action(QStringLiteral("debug.numericInputs"));
  QCOMPARE(runInputs->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+I")));
  runInputs->trigger();
  QCOMPARE(window.findChildren<InputSpecDialog*>().size(), qsizetype(1));
  QVERIFY(dialog->runInputs());
  QCOMPARE(dialog->runInputs()->run(), window.numericRun());
  dialog->editor()->action(QStringLiteral("add"))->trigger();
  QVERIFY(makeChainInput(*dialog->editor()->model(), 0));
  dialog->close();

  f5->trigger(); // from idle, no breakpoint: runs to the end
  QVERIFY(waitFor([&] { return !session->isRunning() && session->interpreterState() != State::Paused; }));
  QVERIFY2(session->interpreterState() == State::Finished, qPrintable(session->lastError()));
  QCOMPARE(session->executedNodes().size(), 8); // x, 2 blocks of 3, output
}

// A real TorchScript file (tests/torchscript's mlp.pt, nn.Sequential(Linear(4, 8), ReLU,
// Linear(8, 3)), made at build time when python3 has torch): one dense row and it runs, to the
// graph.mlir `lattice-cli lower mlp.pt --input 'input:dense:tensor<?x4xf32>'` writes.
void TestInputSpecs::torchScriptFileRunsAfterAddingAnInput() {
  const QString fixtures =
      QFileInfo(QStringLiteral(LATTICE_CLI)).dir().filePath(QStringLiteral("../tests/torchscript/fixtures"));
  const QString pt = QDir(fixtures).filePath(QStringLiteral("mlp.pt"));
  if (!QFileInfo::exists(pt))
    QSKIP("TorchScript fixtures were not generated (python3 without torch); the .ltfx cases cover the rest");
  StudioSession session;
  QVERIFY(openAndWait(session, pt));
  QVERIFY(session.inputSpecs().empty());
  QCOMPARE(session.forwardInputNames(), QStringList{QStringLiteral("input")});
  session.startInterpreter();
  QCOMPARE(session.interpreterState(), State::Failed);
  QVERIFY2(session.lastError().startsWith(QStringLiteral("mlp.pt has no example inputs")),
           qPrintable(session.lastError()));

  InputSpecModel table(&session);
  QCOMPARE(table.addInput(), 0);
  QCOMPARE(table.specs()[0].name, std::string("input")); // the forward's parameter
  QVERIFY(table.setData(table.index(0, InputSpecModel::KindColumn), QStringLiteral("dense")));
  QVERIFY(table.setData(table.index(0, InputSpecModel::TypeColumn), QStringLiteral("tensor<?x4xf32>")));
  QCOMPARE(table.cliArguments(), QStringLiteral("--input 'input:dense:tensor<?x4xf32>'"));
  session.setRunSliceBudget(1000);
  session.continueRun();
  QVERIFY(waitFor([&] { return session.interpreterState() != State::Paused; }));
  QVERIFY2(session.interpreterState() == State::Finished, qPrintable(session.lastError()));
  auto text = session.lowering()->builder->toMlir();
  QVERIFY(text.ok());

  QTemporaryDir out;
  QProcess process;
  process.start(QStringLiteral(LATTICE_CLI),
                {QStringLiteral("lower"), pt, QStringLiteral("--input"),
                 QStringLiteral("input:dense:tensor<?x4xf32>"), QStringLiteral("-o"),
                 out.filePath(QStringLiteral("cli.lattice"))});
  QVERIFY(process.waitForFinished(120000));
  QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
  QCOMPARE(QByteArray::fromStdString(*text), readAll(out.filePath(QStringLiteral("cli.lattice/graph.mlir"))));
}

QTEST_MAIN(TestInputSpecs)
#include "tst_input_specs.moc"
