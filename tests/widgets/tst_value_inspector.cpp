// The numeric debugger's building blocks (widgets/numeric/): ValueRowsModel's cells against
// hand-computed coordinates and features (QAbstractItemModelTester on sparse and dense values),
// its paging and a 100 000 × 64 value, ValueInspector's summary fields and Save Value… (read
// back with the safetensors reader, bytes compared), HistogramChart's bars against the core
// histogram, and DataFlowChart's points, threshold and clicks.

#include "charts/DataFlowChart.h"
#include "charts/HistogramChart.h"
#include "numeric/ValueInspector.h"
#include "numeric/ValueRowsModel.h"
#include "runtime/CoordSet.h"
#include "runtime/Runtime.h"
#include "runtime/ValueSummary.h"
#include "tensor/Safetensors.h"

#include "WidgetTestSupport.h"

#include <QAbstractItemModelTester>
#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QLocale>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

#include <cmath>
#include <cstring>
#include <limits>

using namespace lattice;
using namespace lattice::runtime;
using namespace lattice::studio;
using lattice::widgettest::waitFor;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

Tensor floatTensor(std::vector<std::int64_t> shape, std::vector<float> values, DType dtype = DType::F32) {
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.floats = std::make_shared<const std::vector<float>>(std::move(values));
  return t;
}

Tensor intTensor(std::vector<std::int64_t> shape, std::vector<std::int64_t> values) {
  Tensor t;
  t.dtype = DType::I64;
  t.shape = std::move(shape);
  t.ints = std::make_shared<const std::vector<std::int64_t>>(std::move(values));
  return t;
}

Sparse sparse(std::vector<std::int32_t> coords, std::int64_t channels, std::vector<float> features,
              Triple stride) {
  Sparse s;
  s.coords = CoordSet::make(std::move(coords));
  s.stride = stride;
  s.capacity = s.coords->rows();
  s.channels = channels;
  s.features = std::make_shared<const std::vector<float>>(std::move(features));
  return s;
}

/// The value the model and inspector tests share: 3 rows × 2 channels, stride (2, 1, 4).
/// Logical (b, x, y, z) → physical (b, 2x, y, 4z): (0, 1, 2, 3) → (0, 2, 2, 12),
/// (1, -1, 0, 5) → (1, -2, 0, 20), (0, 0, 0, 0) → (0, 0, 0, 0).
Sparse smallSparse() {
  return sparse({0, 1, 2, 3, 1, -1, 0, 5, 0, 0, 0, 0}, 2, {0.5f, -1.0f, kNaN, 2.0f, 0.1f, kInf}, {2, 1, 4});
}

/// `rows` rows (0, r mod 500, r / 500, 7) with feature c of row r = r + c / 100.
Sparse largeSparse(std::int64_t rows, std::int64_t channels) {
  std::vector<std::int32_t> coords;
  coords.reserve(static_cast<std::size_t>(rows * 4));
  auto features = std::make_shared<std::vector<float>>(static_cast<std::size_t>(rows * channels));
  for (std::int64_t r = 0; r < rows; ++r) {
    coords.insert(coords.end(),
                  {0, static_cast<std::int32_t>(r % 500), static_cast<std::int32_t>(r / 500), 7});
    for (std::int64_t c = 0; c < channels; ++c)
      (*features)[static_cast<std::size_t>(r * channels + c)] =
          static_cast<float>(r) + static_cast<float>(c) / 100.0f;
  }
  Sparse s;
  s.coords = CoordSet::make(std::move(coords));
  s.stride = {1, 1, 1};
  s.capacity = rows;
  s.channels = channels;
  s.features = std::move(features);
  return s;
}

QString cell(const QAbstractItemModel& m, int row, int column) {
  return m.index(row, column).data().toString();
}
QString header(const QAbstractItemModel& m, int column) {
  return m.headerData(column, Qt::Horizontal).toString();
}

std::vector<std::uint8_t> bytesOf(const TensorData& t) {
  return {t.data(), t.data() + t.byteSize()};
}
template <typename T> std::vector<std::uint8_t> rawBytes(const std::vector<T>& v) {
  std::vector<std::uint8_t> out(v.size() * sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

} // namespace

class TestValueInspector : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase() { lattice::widgettest::isolateSettings(QStringLiteral("tst_value_inspector")); }
  void sparseRows();
  void denseRows();
  void pagingGrowsRowCount();
  void columnsAreCapped();
  void largeSparseValue();
  void inspectorSummary();
  void inspectorMessages();
  void inspectorLargeValueSummarizesInBackground();
  void saveReadsBack();
  void histogramChartBars();
  void dataFlowChart();
  void dataFlowChartClicks();
};

void TestValueInspector::sparseRows() {
  ValueRowsModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  model.setValue(smallSparse());
  QCOMPARE(model.rowCount(), 3);
  QCOMPARE(model.columnCount(), 6);
  QCOMPARE(model.totalRows(), 3);
  QCOMPARE(model.coordinateColumns(), 4);
  const QStringList headers{"b", "x", "y", "z", "f0", "f1"};
  for (int c = 0; c < 6; ++c)
    QCOMPARE(header(model, c), headers[c]);
  QCOMPARE(model.headerData(2, Qt::Vertical).toString(), QStringLiteral("2"));
  // Physical coordinates (see smallSparse).
  const QStringList row0{"0", "2", "2", "12", "0.5", "-1"};
  const QStringList row1{"1", "-2", "0", "20", "nan", "2"};
  const QStringList row2{"0", "0", "0", "0", "0.1", "inf"};
  for (int c = 0; c < 6; ++c) {
    QCOMPARE(cell(model, 0, c), row0[c]);
    QCOMPARE(cell(model, 1, c), row1[c]);
    QCOMPARE(cell(model, 2, c), row2[c]);
  }
  QCOMPARE(model.index(0, 3).data(ValueRowsModel::ValueRole).toLongLong(), 12);
  QCOMPARE(model.index(0, 4).data(ValueRowsModel::ValueRole).toDouble(), 0.5);
  QCOMPARE(model.index(2, 4).data(ValueRowsModel::ValueRole).toDouble(), static_cast<double>(0.1f));
  QVERIFY(model.index(1, 4).data(Qt::ForegroundRole).isValid()); // NaN stands out
  QVERIFY(!model.canFetchMore(QModelIndex()));
  QVERIFY(model.columnsNote().isEmpty());
  // The coordinates are exactly what sparseTensors (lattice-cli run --values) writes.
  const std::vector<NamedTensor> stored = sparseTensors("v", smallSparse());
  const auto* coords = stored[0].tensor.as<std::int32_t>();
  for (int r = 0; r < 3; ++r)
    for (int a = 0; a < 4; ++a)
      QCOMPARE(cell(model, r, a), QString::number(coords[r * 4 + a]));
  model.clear();
  QCOMPARE(model.rowCount(), 0);
  QCOMPARE(model.columnCount(), 0);
}

void TestValueInspector::denseRows() {
  ValueRowsModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  // 2 × 3: rows of the first dimension, columns 0..2.
  model.setValue(floatTensor({2, 3}, {1, 2, 3, 4, 5, 6.25f}));
  QCOMPARE(model.rowCount(), 2);
  QCOMPARE(model.columnCount(), 3);
  QCOMPARE(model.coordinateColumns(), 0);
  QCOMPARE(header(model, 2), QStringLiteral("2"));
  QCOMPARE(cell(model, 0, 0), QStringLiteral("1"));
  QCOMPARE(cell(model, 1, 2), QStringLiteral("6.25"));
  // 2 × 2 × 2: the flattened rest, headed by its multi-index.
  model.setValue(floatTensor({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}));
  QCOMPARE(model.rowCount(), 2);
  QCOMPARE(model.columnCount(), 4);
  QCOMPARE(header(model, 0), QStringLiteral("[0, 0]"));
  QCOMPARE(header(model, 1), QStringLiteral("[0, 1]"));
  QCOMPARE(header(model, 2), QStringLiteral("[1, 0]"));
  QCOMPARE(cell(model, 1, 2), QStringLiteral("6"));
  // Rank 1: one column; rank 0: one cell.
  model.setValue(intTensor({4}, {-3, 0, 0, 7}));
  QCOMPARE(model.rowCount(), 4);
  QCOMPARE(model.columnCount(), 1);
  QCOMPARE(header(model, 0), QStringLiteral("value"));
  QCOMPARE(cell(model, 3, 0), QStringLiteral("7"));
  QCOMPARE(model.index(0, 0).data(ValueRowsModel::ValueRole).toLongLong(), -3);
  model.setValue(intTensor({}, {42}));
  QCOMPARE(model.rowCount(), 1);
  QCOMPARE(model.columnCount(), 1);
  QCOMPARE(cell(model, 0, 0), QStringLiteral("42"));
  // f16 values are floats f16 represents; their text reads back as that float.
  model.setValue(floatTensor({1}, {0.0999755859375f}, DType::F16));
  QCOMPARE(cell(model, 0, 0).toFloat(), 0.0999755859375f);
  // Empty dense tensor: no rows.
  model.setValue(floatTensor({0, 3}, {}));
  QCOMPARE(model.rowCount(), 0);
  QCOMPARE(model.columnCount(), 3);
}

void TestValueInspector::pagingGrowsRowCount() {
  ValueRowsModel model(nullptr, 1000);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  // The test fetches the pages itself. (A tester that fetches runs its checks from the
  // modelReset signal before its own reset bookkeeping has seen it, and then takes the first
  // fetch's rowsAboutToBeInserted for a change nested in the reset.)
  tester.setUseFetchMore(false);
  model.setValue(largeSparse(2500, 3));
  QCOMPARE(model.totalRows(), 2500);
  QCOMPARE(model.rowCount(), 1000);
  QVERIFY(model.canFetchMore(QModelIndex()));
  QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
  model.fetchMore(QModelIndex());
  QCOMPARE(model.rowCount(), 2000);
  model.fetchMore(QModelIndex());
  QCOMPARE(model.rowCount(), 2500);
  QVERIFY(!model.canFetchMore(QModelIndex()));
  model.fetchMore(QModelIndex()); // nothing left: no change
  QCOMPARE(model.rowCount(), 2500);
  QCOMPARE(inserted.size(), 2);
  QCOMPARE(inserted[1][1].toInt(), 2000);
  QCOMPARE(inserted[1][2].toInt(), 2499);
  // Row 2499 = (0, 2499 mod 500, 2499 / 500, 7) = (0, 499, 4, 7), f2 = 2499.02.
  QCOMPARE(cell(model, 2499, 1), QStringLiteral("499"));
  QCOMPARE(cell(model, 2499, 2), QStringLiteral("4"));
  QCOMPARE(model.index(2499, 6).data(ValueRowsModel::ValueRole).toDouble(),
           static_cast<double>(2499.0f + 0.02f));
  // A new value starts at its first page again.
  model.setValue(largeSparse(1500, 1));
  QCOMPARE(model.rowCount(), 1000);
  model.fetchUpTo(1200);
  QCOMPARE(model.rowCount(), 1500);

  // A tester that fetches, on a model already holding a paged value: it pages through it.
  ValueRowsModel fetched(nullptr, 1000);
  fetched.setValue(largeSparse(2500, 3));
  QAbstractItemModelTester fetching(&fetched, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(fetched.rowCount() > 1000);
}

void TestValueInspector::columnsAreCapped() {
  ValueRowsModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  model.setValue(largeSparse(3, 300));
  QCOMPARE(model.totalValueColumns(), 300);
  QCOMPARE(model.shownValueColumns(), 256);
  QCOMPARE(model.columnCount(), 4 + 256);
  QVERIFY(model.columnsCapped());
  QCOMPARE(header(model, 4 + 255), QStringLiteral("f255 (+44 more)"));
  QCOMPARE(model.columnsNote(), QStringLiteral("showing the first 256 of 300 features"));
  // Row 2, f255 = 2 + 2.55.
  QCOMPARE(model.index(2, 4 + 255).data(ValueRowsModel::ValueRole).toDouble(),
           static_cast<double>(2.0f + 2.55f));
}

void TestValueInspector::largeSparseValue() {
  // 100 000 rows × 64 channels: making the model hands out one page; the last row reads
  // straight from the buffers once fetched, and cellText reads it without fetching.
  const Sparse big = largeSparse(100000, 64);
  ValueRowsModel model;
  model.setValue(big);
  QCOMPARE(model.rowCount(), 1000);
  QCOMPARE(model.columnCount(), 4 + 64);
  // 99999 + 0.63 as a float is 99999.6328125, whose shortest text is 99999.63.
  QCOMPARE(model.cellText(99999, 4 + 63), QStringLiteral("99999.63"));
  QTableView view;
  view.setModel(&model);
  view.resize(600, 400);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  model.fetchUpTo(99999);
  QCOMPARE(model.rowCount(), 100000);
  // Row 99 999 = (0, 499, 199, 7).
  QCOMPARE(cell(model, 99999, 1), QStringLiteral("499"));
  QCOMPARE(cell(model, 99999, 2), QStringLiteral("199"));
  QCOMPARE(cell(model, 99999, 3), QStringLiteral("7"));
  QCOMPARE(model.index(99999, 4 + 63).data(ValueRowsModel::ValueRole).toDouble(),
           static_cast<double>(99999.0f + 0.63f));
  view.scrollToBottom();
  QVERIFY(!view.grab().isNull());
}

void TestValueInspector::inspectorSummary() {
  ValueInspector inspector;
  QSignalSpy ready(&inspector, &ValueInspector::summaryReady);
  inspector.setValue(QStringLiteral("%dense"), floatTensor({2, 3}, {1, 2, 3, 4, 5, 6}));
  QCOMPARE(ready.size(), 1); // small values are summarized at once
  QVERIFY(!inspector.showsMessage());
  QVERIFY(inspector.titleText().contains(QStringLiteral("%dense")));
  QVERIFY(inspector.titleText().contains(QStringLiteral("dense tensor F32 [2, 3]")));
  QCOMPARE(inspector.fieldText(QStringLiteral("kind")), QStringLiteral("dense"));
  QCOMPARE(inspector.fieldText(QStringLiteral("dtype")), QStringLiteral("F32"));
  QCOMPARE(inspector.fieldText(QStringLiteral("shape")), QStringLiteral("[2, 3]"));
  QCOMPARE(inspector.fieldText(QStringLiteral("rows")), QString()); // sparse-only fields hidden
  QCOMPARE(inspector.fieldText(QStringLiteral("stride")), QString());
  QCOMPARE(inspector.fieldText(QStringLiteral("elements")), QLocale().toString(6));
  QCOMPARE(inspector.fieldText(QStringLiteral("min")), QStringLiteral("1"));
  QCOMPARE(inspector.fieldText(QStringLiteral("max")), QStringLiteral("6"));
  QCOMPARE(inspector.fieldText(QStringLiteral("mean")), QStringLiteral("3.5"));
  QCOMPARE(inspector.fieldText(QStringLiteral("std")), QString::number(std::sqrt(17.5 / 6.0), 'g', 8));
  QCOMPARE(inspector.rowsModel()->rowCount(), 2);
  QCOMPARE(inspector.rowsModel()->columnCount(), 3);
  QVERIFY(inspector.histogram()->hasData());

  inspector.setValue(QStringLiteral("%s"), smallSparse());
  QCOMPARE(ready.size(), 2);
  QCOMPARE(inspector.fieldText(QStringLiteral("kind")), QStringLiteral("sparse"));
  QCOMPARE(inspector.fieldText(QStringLiteral("rows")), QStringLiteral("3"));
  QCOMPARE(inspector.fieldText(QStringLiteral("channels")), QStringLiteral("2"));
  QCOMPARE(inspector.fieldText(QStringLiteral("stride")), QStringLiteral("(2, 1, 4)"));
  QCOMPARE(inspector.fieldText(QStringLiteral("capacity")), QStringLiteral("3"));
  QCOMPARE(inspector.fieldText(QStringLiteral("nan")), QStringLiteral("1"));
  QCOMPARE(inspector.fieldText(QStringLiteral("posInf")), QStringLiteral("1"));
  QCOMPARE(inspector.fieldText(QStringLiteral("negInf")), QStringLiteral("0"));
  // Finite: 0.5, -1, 2, 0.1f.
  QCOMPARE(inspector.fieldText(QStringLiteral("min")), QStringLiteral("-1"));
  QCOMPARE(inspector.fieldText(QStringLiteral("max")), QStringLiteral("2"));
  QCOMPARE(inspector.summary().finite, 4u);
  QCOMPARE(inspector.rowsModel()->rowCount(), 3);
  QCOMPARE(cell(*inspector.rowsModel(), 1, 3), QStringLiteral("20"));
  QCOMPARE(inspector.histogram()->histogram().counts, inspector.summary().histogram.counts);
  inspector.resize(900, 700);
  QVERIFY(!inspector.grab().isNull());
}

void TestValueInspector::inspectorMessages() {
  ValueInspector inspector;
  QVERIFY(inspector.showsMessage()); // the placeholder
  inspector.setValue(QStringLiteral("%x"), floatTensor({1}, {1}));
  QVERIFY(!inspector.showsMessage());
  inspector.setMessage(QStringLiteral("not computed yet"));
  QVERIFY(inspector.showsMessage());
  QCOMPARE(inspector.message(), QStringLiteral("not computed yet"));
  QCOMPARE(inspector.rowsModel()->rowCount(), 0);
  // No value: a message saying so.
  inspector.setValue(QStringLiteral("%gone"), RuntimeValue());
  QVERIFY(inspector.showsMessage());
  QVERIFY(inspector.message().contains(QStringLiteral("%gone")));
  inspector.clear();
  QVERIFY(inspector.showsMessage());
  QVERIFY(inspector.name().isEmpty());
}

void TestValueInspector::inspectorLargeValueSummarizesInBackground() {
  // 100 000 × 64 = 6.4 M features: summarized on a worker; the table is there at once.
  ValueInspector inspector;
  QSignalSpy ready(&inspector, &ValueInspector::summaryReady);
  inspector.setValue(QStringLiteral("%big"), largeSparse(100000, 64));
  QCOMPARE(inspector.rowsModel()->rowCount(), 1000);
  QVERIFY(inspector.isSummaryRunning());
  QVERIFY(waitFor([&] { return !ready.isEmpty(); }));
  QVERIFY(!inspector.isSummaryRunning());
  const ValueSummary& s = inspector.summary();
  QCOMPARE(s.count, 6400000u);
  QCOMPARE(s.rows, 100000);
  QCOMPARE(s.min, 0.0);
  QCOMPARE(s.max, static_cast<double>(99999.0f + 0.63f));
  QCOMPARE(inspector.fieldText(QStringLiteral("rows")), QLocale().toString(100000));
  // A value set while another is summarized replaces it: only the new one is shown.
  inspector.setValue(QStringLiteral("%big"), largeSparse(100000, 64));
  inspector.setValue(QStringLiteral("%small"), floatTensor({1}, {3}));
  QCOMPARE(inspector.summary().count, 1u);
  QTest::qWait(300);
  QCOMPARE(inspector.name(), QStringLiteral("%small"));
  QCOMPARE(inspector.summary().count, 1u);
}

void TestValueInspector::saveReadsBack() {
  QTemporaryDir dir;
  ValueInspector inspector;
  // Sparse: NAME.coords / .features / .active as lattice-cli run --values writes them.
  inspector.setValue(QStringLiteral("%s"), smallSparse());
  QVERIFY(inspector.saveButton()->isEnabled());
  const QString sparsePath = dir.filePath(QStringLiteral("s.safetensors"));
  QCOMPARE(inspector.saveValue(sparsePath), QString());
  Expected<SafetensorsFile> file = SafetensorsFile::open(sparsePath.toStdString());
  QVERIFY2(file.ok(), file.ok() ? "" : file.message().c_str());
  QCOMPARE(file->tensors().size(), std::size_t(3));
  const TensorData* coords = file->find("s.coords");
  const TensorData* features = file->find("s.features");
  const TensorData* active = file->find("s.active");
  QVERIFY(coords && features && active);
  QCOMPARE(coords->dtype(), DType::I32);
  QCOMPARE(coords->shape(), (std::vector<std::int64_t>{3, 4}));
  QCOMPARE(bytesOf(*coords), rawBytes(std::vector<std::int32_t>{0, 2, 2, 12, 1, -2, 0, 20, 0, 0, 0, 0}));
  QCOMPARE(features->dtype(), DType::F32);
  QCOMPARE(features->shape(), (std::vector<std::int64_t>{3, 2}));
  QCOMPARE(bytesOf(*features), rawBytes(std::vector<float>{0.5f, -1.0f, kNaN, 2.0f, 0.1f, kInf}));
  QCOMPARE(bytesOf(*active), rawBytes(std::vector<std::int32_t>{3}));

  // Dense: under its name; f16 stays f16.
  inspector.setValue(QStringLiteral("%h"), floatTensor({2}, {0.5f, -2.0f}, DType::F16));
  const QString densePath = dir.filePath(QStringLiteral("h.safetensors"));
  QCOMPARE(inspector.saveValue(densePath), QString());
  Expected<SafetensorsFile> dense = SafetensorsFile::open(densePath.toStdString());
  QVERIFY(dense.ok());
  QCOMPARE(dense->tensors().size(), std::size_t(1));
  const TensorData* h = dense->find("h");
  QVERIFY(h);
  QCOMPARE(h->dtype(), DType::F16);
  // 0.5 = 0x3800, -2 = 0xC000 (little-endian).
  QCOMPARE(bytesOf(*h), (std::vector<std::uint8_t>{0x00, 0x38, 0x00, 0xC0}));
  QVERIFY(*h == toTensorData(std::get<Tensor>(inspector.value())));

  // Nothing to save: an error, no file.
  inspector.clear();
  QVERIFY(!inspector.saveValue(dir.filePath(QStringLiteral("none.safetensors"))).isEmpty());
  QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("none.safetensors"))));
  // An unwritable path reports the writer's error.
  inspector.setValue(QStringLiteral("x"), floatTensor({1}, {1}));
  QVERIFY(!inspector.saveValue(dir.filePath(QStringLiteral("missing/dir/x.safetensors"))).isEmpty());
}

void TestValueInspector::histogramChartBars() {
  const std::vector<float> values{-1.0f, 0.0f, 0.0f, 0.5f, 1.0f, 3.0f, kNaN};
  const Histogram h = computeHistogram(values, 4); // 1, 3, 1, 1 (tst_value_summary)
  HistogramChart chart;
  chart.resize(400, 250);
  chart.setHistogram(h, QStringLiteral("values"));
  QVERIFY(chart.hasData());
  QCOMPARE(chart.title(), QStringLiteral("values"));
  QCOMPARE(chart.barValues(), (QList<qreal>{1, 3, 1, 1}));
  QCOMPARE(chart.binText(0), QStringLiteral("[-1, 0): 1"));
  QCOMPARE(chart.binText(3), QStringLiteral("[2, 3]: 1"));
  // Four outline points per bar, on the x axis in the values' units: bin 1 is [0, 1) at 3.
  QCOMPARE(chart.series()->upperSeries()->count(), 4 * 4);
  QCOMPARE(chart.series()->upperSeries()->at(5), QPointF(0, 3));
  QCOMPARE(chart.series()->upperSeries()->at(6), QPointF(1, 3));
  QVERIFY(!chart.grab().isNull());

  // A larger histogram, bar by bar against the core; empty bins on the log axis sit at its floor.
  std::vector<float> spread;
  for (int i = 0; i < 1000; ++i)
    spread.push_back(static_cast<float>(i % 37) * (i % 3 ? 1.0f : -0.25f));
  const Histogram core = computeHistogram(spread, 64);
  chart.setValues(spread, QStringLiteral("spread"), 64);
  QCOMPARE(chart.histogram().counts, core.counts);
  const QList<qreal> bars = chart.barValues();
  QCOMPARE(bars.size(), 64);
  for (int i = 0; i < 64; ++i)
    QCOMPARE(bars[i], static_cast<qreal>(core.counts[static_cast<std::size_t>(i)]));
  chart.setLogScale(true);
  const QList<qreal> logBars = chart.barValues();
  for (int i = 0; i < 64; ++i) {
    const std::uint64_t c = core.counts[static_cast<std::size_t>(i)];
    QCOMPARE(logBars[i], c == 0 ? HistogramChart::logFloor() : static_cast<qreal>(c));
  }
  QVERIFY(!chart.grab().isNull());

  chart.setMessage(QStringLiteral("computing…"));
  QVERIFY(!chart.hasData());
  QCOMPARE(chart.message(), QStringLiteral("computing…"));
  QVERIFY(chart.barValues().isEmpty());
}

void TestValueInspector::dataFlowChart() {
  DataFlowChart chart;
  chart.resize(600, 300);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  chart.setValues({{"%a", 0.0}, {"%b", 1e-6}, {"%c", 0.02}, {"%d", nan}, {"%e", 5e-4}}, 1e-3);
  QCOMPARE(chart.pointCount(), 5);
  QCOMPARE(chart.series()->count(), 5);
  QCOMPARE(chart.threshold(), 1e-3);
  QCOMPARE(chart.thresholdSeries()->count(), 2);
  QCOMPARE(chart.thresholdSeries()->at(0).y(), 1e-3);
  QCOMPARE(chart.thresholdSeries()->at(1).y(), 1e-3);
  QCOMPARE(chart.aboveThreshold(), (QList<int>{2, 3})); // 0.02 and the NaN
  QCOMPARE(chart.plottedValue(2), 0.02);
  QCOMPARE(chart.pointText(2), QStringLiteral("%c (#2): 0.02"));
  // On the log axis 0 sits on the floor, a decade below the smallest positive value.
  chart.setLogScale(true);
  QCOMPARE(chart.plottedValue(0), 1e-7);
  QCOMPARE(chart.plottedValue(1), 1e-6);
  QCOMPARE(chart.series()->count(), 5);
  // The threshold moves; NaN hides it.
  chart.setThreshold(1e-5);
  QCOMPARE(chart.aboveThreshold(), (QList<int>{2, 3, 4}));
  chart.setThreshold(nan);
  QCOMPARE(chart.thresholdSeries()->count(), 0);
  QCOMPARE(chart.aboveThreshold(), (QList<int>{3}));
  chart.setCurrentIndex(4);
  QCOMPARE(chart.currentIndex(), 4);
  chart.setCurrentIndex(9);
  QCOMPARE(chart.currentIndex(), -1);
  QVERIFY(!chart.grab().isNull());
  chart.setMessage(QStringLiteral("no reference run"));
  QCOMPARE(chart.message(), QStringLiteral("no reference run"));
  QCOMPARE(chart.indexAt(QPoint(300, 150)), -1);
  chart.setMessage(QString());
  chart.setValues({});
  QCOMPARE(chart.pointCount(), 0);
  QVERIFY(!chart.grab().isNull());
}

void TestValueInspector::dataFlowChartClicks() {
  DataFlowChart chart;
  chart.resize(700, 320);
  chart.show();
  QVERIFY(QTest::qWaitForWindowExposed(&chart));
  std::vector<DataFlowChart::Point> points;
  for (int i = 0; i < 12; ++i)
    points.emplace_back(QStringLiteral("%op%1").arg(i), 1e-4 * (i + 1));
  chart.setValues(points, 5e-4);
  QCOMPARE(chart.aboveThreshold().size(), 7); // 6e-4 … 1.2e-3
  QApplication::processEvents();
  QSignalSpy clicked(&chart, &DataFlowChart::pointClicked);
  const QPoint at = chart.positionOf(7);
  QCOMPARE(chart.indexAt(at), 7);
  QTest::mouseClick(chart.view()->viewport(), Qt::LeftButton, {}, at);
  QCOMPARE(clicked.size(), 1);
  QCOMPARE(clicked.front().front().toInt(), 7);
  // Anywhere in a point's column picks it; outside the plot area nothing.
  QCOMPARE(chart.indexAt(QPoint(chart.positionOf(3).x(), chart.positionOf(11).y())), 3);
  QCOMPARE(chart.indexAt(QPoint(1, 1)), -1);
  QTest::mouseClick(chart.view()->viewport(), Qt::LeftButton, {}, QPoint(1, 1));
  QCOMPARE(clicked.size(), 1);
}

QTEST_MAIN(TestValueInspector)
#include "tst_value_inspector.moc"
