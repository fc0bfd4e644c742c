// The Inputs editor takes only a channel count the model's first layer can take. The expectation
// comes from the model itself: the graph's input placeholder, the module its first user calls,
// and that module's own `in_channels` (SparseResNet21D's stem conv takes 4). Typing another
// count into the Channels cell is refused with an inline message naming the layer and its weight,
// and the session's specs keep their value; the right count and `?` are accepted. A count set
// behind the editor's back (the session's API) is flagged in the hint line.

#include "StudioSession.h"
#include "WidgetTestSupport.h"
#include "fx/Graph.h"
#include "model/Model.h"
#include "panels/InputSpecEditor.h"
#include "panels/InputSpecModel.h"

#include <QAbstractItemDelegate>
#include <QTableView>
#include <QUndoStack>
#include <QtTest/QtTest>

using namespace lattice;
using namespace lattice::studio;
using namespace lattice::widgettest;

namespace {

// The first layer's in_channels and its node name, read from the model and the traced graph.
std::pair<std::int64_t, QString> firstLayer(const StudioSession& session) {
  for (const fx::Node& node : session.graph()->nodes()) {
    if (node.op() != fx::Op::Placeholder || node.users().empty()) continue;
    const fx::Node* user = node.users().front();
    const ModuleInfo* module = session.model()->module(user->target());
    if (!module) return {-1, {}};
    for (const auto& [name, value] : module->attributes)
      if (name == "in_channels") return {value.asInt(), QString::fromStdString(user->name())};
  }
  return {-1, {}};
}

// Types `text` into `index` through the editor's delegate, as a user would.
void type(InputSpecEditor& editor, const QModelIndex& index, const QString& text) {
  QTableView* view = editor.view();
  QAbstractItemDelegate* delegate = view->itemDelegate();
  QStyleOptionViewItem option;
  QWidget* line = delegate->createEditor(view->viewport(), option, index);
  QVERIFY(line);
  line->setProperty("text", text);
  delegate->setModelData(line, editor.model(), index);
  delete line;
}

} // namespace

class TestInputChannels : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase() { isolateSettings(QStringLiteral("tst_input_channels")); }

  void channelsTheFirstLayerCannotTakeAreRefused() {
    StudioSession session;
    QVERIFY(openAndWait(session, QStringLiteral("example:sparse_resnet21d")));
    const auto [inChannels, node] = firstLayer(session);
    QVERIFY(inChannels > 0);
    InputSpecEditor editor(&session);
    InputSpecModel* model = editor.model();
    QCOMPARE(model->rowCount(), 1);
    const QModelIndex channels = model->index(0, InputSpecModel::ChannelsColumn);

    // What the table knows: the first layer's node and width.
    const std::optional<InputChannelNeed> need = model->channelNeed(0);
    QVERIFY(need);
    QCOMPARE(need->channels, inChannels);
    QCOMPARE(QString::fromStdString(need->node), node);
    QVERIFY(channels.data(Qt::ToolTipRole).toString().contains(node));

    // A wrong width: refused, with an inline message, and nothing reaches the session.
    const std::int64_t wrong = inChannels * 2;
    const int steps = session.inputUndoStack()->count();
    type(editor, channels, QString::number(wrong));
    QCOMPARE(*session.inputSpecs()[0].channels, inChannels);
    QCOMPARE(session.inputUndoStack()->count(), steps);
    const QString hint = editor.hintText();
    QVERIFY2(hint.contains(QStringLiteral("takes %1 channels, not %2").arg(inChannels).arg(wrong)), qPrintable(hint));
    QVERIFY2(hint.contains(node), qPrintable(hint));
    QVERIFY2(hint.contains(QString::fromStdString(need->weightKey)), qPrintable(hint));
    QVERIFY(!model->setData(channels, QString::number(wrong)));
    // For a look at the message: LATTICE_SCREENSHOT_DIR=DIR saves the editor as it shows it.
    if (const QString dir = qEnvironmentVariable("LATTICE_SCREENSHOT_DIR"); !dir.isEmpty()) {
      editor.resize(720, 240);
      editor.show();
      QVERIFY(QTest::qWaitForWindowExposed(&editor));
      QVERIFY(editor.grab().save(dir + QStringLiteral("/input-channels.png"), "PNG"));
    }

    // Unknown, then the right width: accepted.
    type(editor, channels, QStringLiteral("?"));
    QVERIFY(!session.inputSpecs()[0].channels);
    type(editor, channels, QString::number(inChannels));
    QCOMPARE(*session.inputSpecs()[0].channels, inChannels);
    QVERIFY(!editor.hintText().contains(QStringLiteral("takes")));

    // Set behind the editor's back: the hint line says what is wrong.
    std::vector<InputSpec> specs = session.inputSpecs();
    specs[0].channels = wrong;
    session.setInputSpecs(specs, QStringLiteral("Edit Channels"));
    QVERIFY2(editor.hintText().contains(QStringLiteral("takes %1 channels").arg(inChannels)),
             qPrintable(editor.hintText()));
  }
};

QTEST_MAIN(TestInputChannels)
#include "tst_input_channels.moc"
