// Tests for safetensors reading (the writer's own tests: tst_safetensors_writer.cpp). The byte conventions are checked against the
// reference conformance files (re-writing their tensors must reproduce them byte for byte) and
// against headers worked out by hand from lattice-artifact-format.md §13.1; the reader is fed
// malformed buffers built here, one per bound it must check, files another program truncates
// and rewrites while they are open or read, and files larger than the memory it may take.

#include "SafetensorsTestSupport.h"
#include "tensor/Safetensors.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <set>
#include <thread>

#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <unistd.h>

using namespace lattice;
using namespace lattice::test;

namespace {

QByteArray readBytes(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  return file.readAll();
}

QByteArray toBytes(const std::string& s) {
  return QByteArray(s.data(), int(s.size()));
}

// 8-byte little-endian length, then `header` verbatim, then `dataBytes` zero bytes.
QByteArray fileWith(const QByteArray& header, int dataBytes, uint64_t declaredLength) {
  QByteArray out;
  for (int i = 0; i < 8; ++i)
    out.append(char((declaredLength >> (8 * i)) & 0xff));
  out.append(header);
  out.append(QByteArray(dataBytes, '\0'));
  return out;
}

QByteArray fileWith(const QByteArray& header, int dataBytes = 0) {
  return fileWith(header, dataBytes, uint64_t(header.size()));
}

Expected<SafetensorsFile> parseBytes(const QByteArray& bytes, const std::string& name = "bad.safetensors") {
  auto owner = std::make_shared<QByteArray>(bytes);
  return SafetensorsFile::parse(reinterpret_cast<const uint8_t*>(owner->constData()),
                                std::size_t(owner->size()), name, owner);
}

} // namespace

class TestSafetensors : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void conformanceRoundTrip_data();
  void conformanceRoundTrip();
  void emptyWeightsFile();
  void emptyFileWithoutMetadata();
  void orderByDtypeRankThenKeyBytes();
  void headerEscapesStrings();
  void headerPaddingIsSpacesToMultipleOfEight();
  void malformed_data();
  void malformed();
  void exampleMessageIsExact();
  void acceptsAnyValidLayout();
  void everyTruncationIsRejected();
  void corruptedBytesNeverCrash();
  void viewsOutliveFile();
  void openedFileSurvivesTruncationAndRewrite();
  void openWhileAnotherProgramWrites();
  void fileLargerThanMemoryIsRefused();
  void addressSpaceLimitIsAnError();
  void openErrors();
};

void TestSafetensors::conformanceRoundTrip_data() {
  QTest::addColumn<QString>("path");
  QTest::addColumn<bool>("weights");
  const QDir models(QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models"));
  const QStringList cases = models.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
  QVERIFY(cases.size() >= 7);
  for (const QString& c : cases) {
    const QString dir = models.filePath(c);
    QTest::newRow(qPrintable(c + QStringLiteral("/weights")))
        << dir + QStringLiteral("/expected.lattice/weights.safetensors") << true;
    QTest::newRow(qPrintable(c + QStringLiteral("/inputs")))
        << dir + QStringLiteral("/inputs.safetensors") << false;
    QTest::newRow(qPrintable(c + QStringLiteral("/expected")))
        << dir + QStringLiteral("/expected.safetensors") << false;
  }
}

void TestSafetensors::conformanceRoundTrip() {
  QFETCH(QString, path);
  QFETCH(bool, weights);
  const QByteArray original = readBytes(path);
  QVERIFY2(!original.isEmpty(), qPrintable(path));

  Expected<SafetensorsFile> file = SafetensorsFile::open(path.toStdString());
  QVERIFY2(file.ok(), file.ok() ? "" : file.message().c_str());
  // Weights files carry {"format":"torch"}; fixture inputs/expected outputs carry no metadata.
  QCOMPARE(file->hasMetadata(), weights);
  if (weights) QVERIFY(file->metadata() == torchWeightsMetadata());

  // Hand the writer the tensors in reverse order so the sort has work to do.
  std::vector<NamedTensor> tensors(file->tensors().rbegin(), file->tensors().rend());
  for (const NamedTensor& t : tensors) {
    QVERIFY(t.tensor.isView());
    QCOMPARE(t.tensor.byteSize(), std::size_t(t.tensor.numel()) * dtypeSize(t.tensor.dtype()));
  }

  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const QString out = dir.filePath(QStringLiteral("out.safetensors"));
  const std::optional<SafetensorsMetadata> metadata =
      weights ? std::optional<SafetensorsMetadata>(torchWeightsMetadata()) : std::nullopt;
  const Status written = writeSafetensors(out.toStdString(), tensors, metadata);
  QVERIFY2(written.ok(), written.ok() ? "" : written.message().c_str());
  QCOMPARE(readBytes(out), original);

  // The header alone matches the original's first 8 + N bytes.
  std::vector<const NamedTensor*> sorted;
  for (const NamedTensor& t : tensors)
    sorted.push_back(&t);
  sortForSafetensors(sorted);
  const std::string header = safetensorsHeader(sorted, metadata);
  QCOMPARE(toBytes(header), original.left(int(header.size())));
}

void TestSafetensors::emptyWeightsFile() {
  QTemporaryDir dir;
  const QString out = dir.filePath(QStringLiteral("weights.safetensors"));
  QVERIFY(writeSafetensors(out.toStdString(), {}, torchWeightsMetadata()).ok());
  // §13.1: N = 40 (0x28), 35 bytes of JSON + 5 spaces, 48 bytes in all.
  const QByteArray expected =
      QByteArray("\x28\0\0\0\0\0\0\0", 8) + QByteArray("{\"__metadata__\":{\"format\":\"torch\"}}     ");
  QCOMPARE(expected.size(), 48);
  QCOMPARE(readBytes(out), expected);

  Expected<SafetensorsFile> file = SafetensorsFile::open(out.toStdString());
  QVERIFY(file.ok());
  QVERIFY(file->tensors().empty());
  QVERIFY(file->hasMetadata());
}

void TestSafetensors::emptyFileWithoutMetadata() {
  const std::string header = safetensorsHeader({}, std::nullopt);
  QCOMPARE(toBytes(header), QByteArray("\x08\0\0\0\0\0\0\0{}      ", 16));
  const std::string emptyMetadata = safetensorsHeader({}, SafetensorsMetadata{});
  QCOMPARE(toBytes(emptyMetadata), QByteArray("\x18\0\0\0\0\0\0\0{\"__metadata__\":{}}     ", 32));
}

void TestSafetensors::orderByDtypeRankThenKeyBytes() {
  // F32 > U32 > I32 > F16 (§13.1); within one dtype, keys ascend by bytes: 'B' (0x42) < 'a'
  // (0x61) < 'z' < "\xc3\xa9" (é, bytes above 0x7f sort last).
  std::vector<NamedTensor> tensors = {
      {"h", filled(DType::F16, {1}, 0x11)},        {"i", filled(DType::I32, {1}, 0x22)},
      {"u", filled(DType::U32, {2}, 0x33)},        {"z", filled(DType::F32, {1}, 0x44)},
      {"\xc3\xa9", filled(DType::F32, {1}, 0x55)}, {"a", filled(DType::F32, {1}, 0x66)},
      {"B", filled(DType::F32, {1}, 0x77)},
  };
  QTemporaryDir dir;
  const QString out = dir.filePath(QStringLiteral("order.safetensors"));
  QVERIFY(writeSafetensors(out.toStdString(), tensors, std::nullopt).ok());

  const QByteArray json = "{\"B\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                          "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]},"
                          "\"z\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]},"
                          "\"\xc3\xa9\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[12,16]},"
                          "\"u\":{\"dtype\":\"U32\",\"shape\":[2],\"data_offsets\":[16,24]},"
                          "\"i\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[24,28]},"
                          "\"h\":{\"dtype\":\"F16\",\"shape\":[1],\"data_offsets\":[28,30]}}";
  QCOMPARE(json.size(), 382); // padded with 2 spaces to 384 (0x180)
  QByteArray data;
  for (char b : {'\x77', '\x66', '\x44', '\x55'})
    data += QByteArray(4, b);
  data += QByteArray(8, '\x33') + QByteArray(4, '\x22') + QByteArray(2, '\x11');
  const QByteArray expected = QByteArray("\x80\x01\0\0\0\0\0\0", 8) + json + "  " + data;
  QCOMPARE(readBytes(out), expected);

  // The reader keeps header order.
  Expected<SafetensorsFile> file = SafetensorsFile::open(out.toStdString());
  QVERIFY(file.ok());
  QStringList keys;
  for (const NamedTensor& t : file->tensors())
    keys << QString::fromStdString(t.key);
  QCOMPARE(keys, (QStringList{"B", "a", "z", QString::fromUtf8("\xc3\xa9"), "u", "i", "h"}));
}

void TestSafetensors::headerEscapesStrings() {
  std::vector<NamedTensor> tensors = {{"a\"b\\c\n\x01", f32({}, {1.0f})}};
  std::vector<const NamedTensor*> sorted = {&tensors[0]};
  const std::string header = safetensorsHeader(sorted, SafetensorsMetadata{{"k\t", "v\""}});
  const QByteArray json = toBytes(header).mid(8).trimmed();
  QCOMPARE(json,
           QByteArray("{\"__metadata__\":{\"k\\t\":\"v\\\"\"},"
                      "\"a\\\"b\\\\c\\n\\u0001\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]}}"));

  QTemporaryDir dir;
  const QString out = dir.filePath(QStringLiteral("escaped.safetensors"));
  QVERIFY(writeSafetensors(out.toStdString(), tensors, SafetensorsMetadata{{"k\t", "v\""}}).ok());
  Expected<SafetensorsFile> file = SafetensorsFile::open(out.toStdString());
  QVERIFY(file.ok());
  QVERIFY(file->find("a\"b\\c\n\x01") != nullptr);
  QVERIFY(*file->find("a\"b\\c\n\x01") == tensors[0].tensor);
  QCOMPARE(file->metadata().front().second, std::string("v\""));
}

void TestSafetensors::headerPaddingIsSpacesToMultipleOfEight() {
  // One F32 scalar keyed by 1..9 characters: the JSON is 52 + len bytes, so the padding cycles
  // through every remainder.
  for (int len = 1; len <= 9; ++len) {
    std::vector<NamedTensor> tensors = {{std::string(std::size_t(len), 'k'), f32({}, {0.0f})}};
    std::vector<const NamedTensor*> sorted = {&tensors[0]};
    const std::string header = safetensorsHeader(sorted, std::nullopt);
    const int jsonLength = 52 + len;
    const int padded = (jsonLength + 7) / 8 * 8;
    QCOMPARE(int(header.size()), 8 + padded);
    QCOMPARE(int(uint8_t(header[0])), padded);
    QCOMPARE(header.substr(8 + std::size_t(jsonLength)), std::string(std::size_t(padded - jsonLength), ' '));
    QCOMPARE(header[7 + std::size_t(jsonLength)], '}');
  }
}

void TestSafetensors::malformed_data() {
  QTest::addColumn<QByteArray>("bytes");
  QTest::addColumn<QStringList>("mentions");

  QTest::newRow("empty") << QByteArray() << QStringList{"too short", "0 bytes", "truncated"};
  QTest::newRow("seven bytes") << QByteArray(7, '\0') << QStringList{"too short", "7 bytes", "truncated"};
  QTest::newRow("header length past end")
      << fileWith("{}", 0, 1000)
      << QStringList{"header length 1000", "exceeds the file size (10 bytes)", "truncated"};
  QTest::newRow("header length 2^64-1")
      << fileWith("{}", 0, ~uint64_t(0)) << QStringList{"header length 18446744073709551615", "exceeds"};
  QTest::newRow("header one past end") << fileWith("{}", 0, 3) << QStringList{"header length 3", "exceeds"};
  QTest::newRow("not json") << fileWith("{abc}") << QStringList{"not valid JSON"};
  QTest::newRow("truncated json") << fileWith("{\"w\":{\"dtype\":\"F32\"") << QStringList{"not valid JSON"};
  QTest::newRow("invalid utf-8") << fileWith("{\"\xff\":1}") << QStringList{"not valid JSON"};
  QTest::newRow("not an object") << fileWith("[1,2]") << QStringList{"not a JSON object"};
  QTest::newRow("duplicate key") << fileWith("{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
                                             "\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}",
                                             2)
                                 << QStringList{"duplicate key 'w'"};
  QTest::newRow("deep nesting") << fileWith("{\"w\":" + QByteArray(200, '[') + QByteArray(200, ']') + "}")
                                << QStringList{"deeper"};
  QTest::newRow("entry not an object")
      << fileWith("{\"w\":[1]}") << QStringList{"tensor 'w'", "not an object"};
  QTest::newRow("dtype missing") << fileWith("{\"w\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4)
                                 << QStringList{"tensor 'w'", "dtype"};
  QTest::newRow("dtype not a string")
      << fileWith("{\"w\":{\"dtype\":4,\"shape\":[1],\"data_offsets\":[0,4]}}", 4)
      << QStringList{"tensor 'w'", "dtype"};
  QTest::newRow("unknown dtype")
      << fileWith("{\"w\":{\"dtype\":\"F8_E4M3\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1)
      << QStringList{"tensor 'w'", "unknown dtype 'F8_E4M3'"};
  QTest::newRow("shape missing") << fileWith("{\"w\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", 4)
                                 << QStringList{"tensor 'w'", "shape"};
  QTest::newRow("shape not a list") << fileWith(
                                           "{\"w\":{\"dtype\":\"F32\",\"shape\":1,\"data_offsets\":[0,4]}}",
                                           4)
                                    << QStringList{"tensor 'w'", "shape", "non-negative integers"};
  QTest::newRow("shape negative") << fileWith(
                                         "{\"w\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}",
                                         4)
                                  << QStringList{"tensor 'w'", "shape", "-1"};
  QTest::newRow("shape float") << fileWith(
                                      "{\"w\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}", 4)
                               << QStringList{"tensor 'w'", "shape", "1.5"};
  QTest::newRow("shape nested") << fileWith(
                                       "{\"w\":{\"dtype\":\"F32\",\"shape\":[[1]],\"data_offsets\":[0,4]}}",
                                       4)
                                << QStringList{"tensor 'w'", "shape"};
  QTest::newRow("shape past int64")
      << fileWith("{\"w\":{\"dtype\":\"U8\",\"shape\":[9223372036854775808],\"data_offsets\":[0,1]}}", 1)
      << QStringList{"tensor 'w'", "shape"};
  QTest::newRow("offsets missing") << fileWith("{\"w\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4)
                                   << QStringList{"tensor 'w'", "data_offsets"};
  QTest::newRow("offsets one int") << fileWith(
                                          "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0]}}", 4)
                                   << QStringList{"tensor 'w'", "data_offsets", "two"};
  QTest::newRow("offsets three ints")
      << fileWith("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}}", 8)
      << QStringList{"tensor 'w'", "data_offsets", "two"};
  QTest::newRow("offsets negative")
      << fileWith("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[-4,0]}}", 4)
      << QStringList{"tensor 'w'", "data_offsets"};
  QTest::newRow("offsets strings")
      << fileWith("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[\"0\",\"4\"]}}", 4)
      << QStringList{"tensor 'w'", "data_offsets"};
  QTest::newRow("begin after end") << fileWith(
                                          "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,4]}}",
                                          8)
                                   << QStringList{"tensor 'w'", "[8, 4]", "end before they begin"};
  QTest::newRow("end beyond data")
      << fileWith("{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 7)
      << QStringList{"tensor 'w'", "[0, 8]", "exceed the data section (7 bytes)", "truncated"};
  QTest::newRow("end far beyond data") << fileWith("{\"w\":{\"dtype\":\"U8\",\"shape\":[9223372036854775807],"
                                                   "\"data_offsets\":[0,9223372036854775807]}}",
                                                   1)
                                       << QStringList{"tensor 'w'", "exceed the data section (1 bytes)"};
  QTest::newRow("byte length mismatch")
      << fileWith("{\"w\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,12]}}", 12)
      << QStringList{"tensor 'w'", "12 bytes", "needs 16 bytes"};
  QTest::newRow("numel overflow")
      << fileWith("{\"w\":{\"dtype\":\"U8\",\"shape\":[4294967296,4294967296,4],\"data_offsets\":[0,0]}}")
      << QStringList{"tensor 'w'", "too many elements"};
  // 2^61 F64 elements is 2^64 bytes: numel fits, the byte count does not.
  QTest::newRow("byte count overflow")
      << fileWith("{\"w\":{\"dtype\":\"F64\",\"shape\":[2305843009213693952],\"data_offsets\":[0,0]}}")
      << QStringList{"tensor 'w'", "too many elements"};
  QTest::newRow("overlapping ranges")
      << fileWith("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                  "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
                  12)
      << QStringList{"tensor 'b'", "[4, 12]", "overlap tensor 'a' [0, 8]"};
  QTest::newRow("identical ranges") << fileWith(
                                           "{\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                                           "\"a\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
                                           4)
                                    << QStringList{"overlap"};
  QTest::newRow("metadata not an object") << fileWith("{\"__metadata__\":[\"format\",\"torch\"]}")
                                          << QStringList{"__metadata__", "map of strings"};
  QTest::newRow("metadata value not a string")
      << fileWith("{\"__metadata__\":{\"format\":\"torch\",\"version\":2}}")
      << QStringList{"__metadata__", "'version'", "not a string"};
  QTest::newRow("control character in key stays on one line")
      << fileWith("{\"a\\nb\":1}") << QStringList{"tensor 'a\\x0ab'", "not an object"};
}

void TestSafetensors::malformed() {
  QFETCH(QByteArray, bytes);
  QFETCH(QStringList, mentions);
  const Expected<SafetensorsFile> file = parseBytes(bytes);
  QVERIFY(!file.ok());
  const QString text = QString::fromStdString(file.message());
  QVERIFY2(text.startsWith(QStringLiteral("bad.safetensors: ")), qPrintable(text));
  QVERIFY2(!text.contains(QLatin1Char('\n')), qPrintable(text));
  QVERIFY2(!text.endsWith(QLatin1Char('.')), qPrintable(text));
  for (const QString& m : mentions)
    QVERIFY2(text.contains(m), qPrintable(QStringLiteral("'%1' not in: %2").arg(m, text)));
}

void TestSafetensors::exampleMessageIsExact() {
  const QByteArray bytes =
      fileWith("{\"stem.weight\":{\"dtype\":\"F32\",\"shape\":[3,3],\"data_offsets\":[0,99]}}", 64);
  const Expected<SafetensorsFile> file = parseBytes(bytes, "weights.safetensors");
  QVERIFY(!file.ok());
  QCOMPARE(QString::fromStdString(file.message()),
           QStringLiteral("weights.safetensors: tensor 'stem.weight': data_offsets [0, 99] exceed the data "
                          "section (64 bytes): the file is truncated"));
}

void TestSafetensors::acceptsAnyValidLayout() {
  // Unsorted keys, a gap between tensors, trailing data, a scalar, an empty tensor, metadata
  // after a tensor with arbitrary content, a header padded with spaces but not to 8.
  const QByteArray header = "{\"z\":{\"dtype\":\"I32\",\"shape\":[],\"data_offsets\":[8,12]},"
                            "\"e\":{\"dtype\":\"F64\",\"shape\":[0,3],\"data_offsets\":[4,4]},"
                            "\"__metadata__\":{\"b\":\"2\",\"a\":\"\"},"
                            "\"a\":{\"dtype\":\"U8\",\"shape\":[2,2],\"data_offsets\":[0,4]}}  ";
  QByteArray bytes = fileWith(header, 0);
  bytes += QByteArray("\x01\x02\x03\x04", 4) + QByteArray(4, '\xee') + QByteArray("\x2a\0\0\0", 4) + "tail";
  const Expected<SafetensorsFile> file = parseBytes(bytes);
  QVERIFY2(file.ok(), file.ok() ? "" : file.message().c_str());
  QCOMPARE(file->tensors().size(), std::size_t(3));
  QCOMPARE(file->tensors()[0].key, std::string("z"));
  QCOMPARE(file->tensors()[1].key, std::string("e"));
  QCOMPARE(file->tensors()[2].key, std::string("a"));
  QVERIFY(file->hasMetadata());
  QVERIFY((file->metadata() == SafetensorsMetadata{{"b", "2"}, {"a", ""}}));

  const TensorData* z = file->find("z");
  QVERIFY(z);
  QCOMPARE(z->dtype(), DType::I32);
  QCOMPARE(z->numel(), int64_t(1));
  int32_t zValue = 0; // z sits at data offset 8 after a 130-byte header: unaligned, so memcpy
  std::memcpy(&zValue, z->data(), sizeof zValue);
  QCOMPARE(zValue, 42);
  const TensorData* a = file->find("a");
  QVERIFY(a);
  QCOMPARE(a->byteSize(), std::size_t(4));
  QCOMPARE(int(a->data()[3]), 4);
  const TensorData* e = file->find("e");
  QVERIFY(e);
  QCOMPARE(e->byteSize(), std::size_t(0));
  QCOMPARE(e->shape(), (std::vector<int64_t>{0, 3}));
  QVERIFY(file->find("b") == nullptr);
  QVERIFY(file->find("__metadata__") == nullptr);

  // A header of "{}" with no tensors and no metadata.
  const Expected<SafetensorsFile> empty = parseBytes(fileWith("{}"));
  QVERIFY(empty.ok());
  QVERIFY(empty->tensors().empty());
  QVERIFY(!empty->hasMetadata());
}

void TestSafetensors::everyTruncationIsRejected() {
  // The last tensor of this fixture is non-empty, so every proper prefix cuts into the header
  // or the data section.
  const QByteArray original = readBytes(
      QStringLiteral(LATTICE_TEST_DATA_DIR
                     "/conformance/models/quantized_classifier_int8/expected.lattice/weights.safetensors"));
  QVERIFY(original.size() > 48);
  QVERIFY(parseBytes(original).ok());
  for (int length = 0; length < original.size(); ++length) {
    const Expected<SafetensorsFile> file = parseBytes(original.left(length));
    QVERIFY2(!file.ok(), qPrintable(QStringLiteral("prefix of %1 bytes accepted").arg(length)));
    QVERIFY(!QString::fromStdString(file.message()).contains(QLatin1Char('\n')));
  }
}

void TestSafetensors::corruptedBytesNeverCrash() {
  // Every header byte replaced by a few troublesome values: the reader must either accept the
  // result with all views inside the buffer or reject it with a one-line message.
  const QByteArray original = readBytes(QStringLiteral(
      LATTICE_TEST_DATA_DIR "/conformance/models/sparse_classifier/expected.lattice/weights.safetensors"));
  QVERIFY(!original.isEmpty());
  const int headerEnd = 8 + int(uint8_t(original[0])) + 256 * int(uint8_t(original[1]));
  for (int i = 0; i < headerEnd; ++i) {
    for (char replacement : {'\0', '9', '-', '[', '"', '\xff', ' '}) {
      auto bytes = std::make_shared<QByteArray>(original);
      (*bytes)[i] = replacement;
      const auto* begin = reinterpret_cast<const uint8_t*>(bytes->constData());
      const auto size = std::size_t(bytes->size());
      const Expected<SafetensorsFile> file =
          SafetensorsFile::parse(begin, size, "corrupt.safetensors", bytes);
      if (!file.ok()) {
        QVERIFY(!QString::fromStdString(file.message()).contains(QLatin1Char('\n')));
        continue;
      }
      for (const NamedTensor& t : file->tensors()) {
        QVERIFY(t.tensor.data() >= begin + 8);
        QVERIFY(t.tensor.data() + t.tensor.byteSize() <= begin + size);
        QCOMPARE(t.tensor.byteSize(), std::size_t(t.tensor.numel()) * dtypeSize(t.tensor.dtype()));
      }
    }
  }
}

void TestSafetensors::viewsOutliveFile() {
  QTemporaryDir dir;
  const QString out = dir.filePath(QStringLiteral("keep.safetensors"));
  const TensorData original = f32({3}, {1.5f, -2.0f, 1e-3f});
  QVERIFY(writeSafetensors(out.toStdString(), {{"w", original}}, std::nullopt).ok());

  TensorData kept;
  {
    Expected<SafetensorsFile> file = SafetensorsFile::open(out.toStdString());
    QVERIFY(file.ok());
    QCOMPARE(file->name(), out.toStdString());
    kept = *file->find("w");
  }
  // The file object is gone and the file itself removed; the bytes live on in `kept`.
  QVERIFY(QFile::remove(out));
  QVERIFY(kept.isView());
  QVERIFY(kept == original);
}

namespace {

/// A safetensors file at `path` whose one U8 tensor "w" declares `dataBytes` bytes, made
/// sparse with ftruncate: nothing but the header is written.
bool writeSparseSafetensors(const QString& path, uint64_t dataBytes) {
  const std::string header = "{\"w\":{\"dtype\":\"U8\",\"shape\":[" + std::to_string(dataBytes) +
                             "],\"data_offsets\":[0," + std::to_string(dataBytes) + "]}}";
  QByteArray bytes;
  for (int i = 0; i < 8; ++i)
    bytes.append(char((uint64_t(header.size()) >> (8 * i)) & 0xff));
  bytes.append(header.data(), int(header.size()));
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) return false;
  f.close();
  return ::truncate(QFile::encodeName(path).constData(), off_t(bytes.size() + dataBytes)) == 0;
}

} // namespace

void TestSafetensors::openedFileSurvivesTruncationAndRewrite() {
  // What safetensors.save_file and torch.save do to a file another program has open: truncate
  // it, then write it again, in place. The tensors read before keep their values (a mapping of
  // the file would fault with SIGBUS on the pages the truncation took away).
  QTemporaryDir dir;
  const QString out = dir.filePath(QStringLiteral("weights.safetensors"));
  const TensorData big = filled(DType::U8, {int64_t(3) << 20}, 0x5a);
  const TensorData small = f32({3}, {1.5f, -2.0f, 1e-3f});
  QVERIFY(writeSafetensors(out.toStdString(), {{"big", big}, {"small", small}}, std::nullopt).ok());
  Expected<SafetensorsFile> file = SafetensorsFile::open(out.toStdString());
  QVERIFY(file.ok());
  const TensorData kept = *file->find("big");
  {
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadWrite));
    QVERIFY(f.resize(0)); // same inode: truncated in place
  }
  QVERIFY(kept == big);
  QVERIFY(*file->find("small") == small);
  QVERIFY(writeSafetensors(out.toStdString(), {{"big", filled(DType::U8, {int64_t(3) << 20}, 1)}}, std::nullopt).ok());
  {
    QFile f(out); // rewritten in place with other values
    QVERIFY(f.open(QIODevice::ReadWrite));
    QVERIFY(f.write(QByteArray(1 << 20, '\x7f')) == (1 << 20));
  }
  QVERIFY(kept == big);
  QVERIFY(QFile::remove(out));
  QVERIFY(kept == big);
  QVERIFY(*file->find("small") == small);
}

void TestSafetensors::openWhileAnotherProgramWrites() {
  // A writer truncates and rewrites the file over and over while it is opened and read: every
  // open ends in a complete file or in an error naming it, never in a fault.
  QTemporaryDir dir;
  const QString out = dir.filePath(QStringLiteral("busy.safetensors"));
  const std::string path = out.toStdString();
  QVERIFY(writeSafetensors(path, {{"w", filled(DType::U8, {int64_t(1) << 20}, 3)}}, std::nullopt).ok());
  QFile source(out);
  QVERIFY(source.open(QIODevice::ReadOnly));
  const QByteArray whole = source.readAll();
  source.close();
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    while (!stop.load()) {
      QFile f(out);
      if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) continue;
      for (int at = 0; at < whole.size(); at += 64 * 1024)
        f.write(whole.constData() + at, std::min(64 * 1024, int(whole.size()) - at));
      f.close();
      std::this_thread::sleep_for(std::chrono::milliseconds(2)); // complete for a moment
    }
  });
  int complete = 0, refused = 0;
  std::set<std::string> reasons;
  QElapsedTimer clock;
  clock.start();
  while (clock.elapsed() < 1500) {
    Expected<SafetensorsFile> file = SafetensorsFile::open(path);
    if (file.ok()) {
      ++complete;
      const TensorData* w = file->find("w");
      QVERIFY(w && w->byteSize() == std::size_t(1) << 20);
      QVERIFY(std::all_of(w->data(), w->data() + w->byteSize(), [](uint8_t b) { return b == 3; }));
    } else {
      ++refused;
      QVERIFY2(file.message().rfind(path + ": ", 0) == 0, file.message().c_str());
      reasons.insert(file.message().substr(path.size() + 2, 40));
    }
  }
  stop = true;
  writer.join();
  qInfo("%d complete, %d refused", complete, refused);
  for (const std::string& r : reasons)
    qInfo("refused: %s...", r.c_str());
  QVERIFY(complete + refused > 0);
}

void TestSafetensors::fileLargerThanMemoryIsRefused() {
  // A (sparse) file larger than the machine's RAM and swap together cannot be read: refused
  // with its size before anything is allocated.
  struct sysinfo info {};
  QVERIFY(sysinfo(&info) == 0);
  const uint64_t memory = (uint64_t(info.totalram) + info.totalswap) * info.mem_unit;
  QTemporaryDir dir;
  const QString out = dir.filePath(QStringLiteral("huge.safetensors"));
  if (!writeSparseSafetensors(out, memory + (uint64_t(1) << 30))) QSKIP("no sparse file of that size here");
  const Expected<SafetensorsFile> file = SafetensorsFile::open(out.toStdString());
  QVERIFY(!file.ok());
  const QString message = QString::fromStdString(file.message());
  QVERIFY2(message.startsWith(out + QStringLiteral(": the file holds ")), qPrintable(message));
  QVERIFY2(message.contains(QString::number(QFileInfo(out).size()) + QStringLiteral(" bytes")), qPrintable(message));
  QVERIFY2(message.contains(QStringLiteral("RAM and swap")) && message.contains(QStringLiteral("cannot be read into memory")),
           qPrintable(message));
}

void TestSafetensors::addressSpaceLimitIsAnError() {
  // Under an address-space limit (ulimit -v) a file the limit leaves no room for is refused
  // with its size and the limit, not by an allocation failing (std::bad_alloc, abort).
  QTemporaryDir dir;
  const QString out = dir.filePath(QStringLiteral("limited.safetensors"));
  QVERIFY(writeSparseSafetensors(out, uint64_t(1) << 30));
  rlimit saved{};
  QVERIFY(getrlimit(RLIMIT_AS, &saved) == 0);
  QFile statm(QStringLiteral("/proc/self/statm"));
  QVERIFY(statm.open(QIODevice::ReadOnly));
  const uint64_t used = statm.readAll().split(' ').front().toULongLong() * uint64_t(sysconf(_SC_PAGESIZE));
  const uint64_t cap = used + (uint64_t(256) << 20);
  if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < cap) QSKIP("address-space limit already too small");
  rlimit limited = saved;
  limited.rlim_cur = cap;
  QVERIFY(setrlimit(RLIMIT_AS, &limited) == 0);
  const Expected<SafetensorsFile> file = SafetensorsFile::open(out.toStdString());
  setrlimit(RLIMIT_AS, &saved);
  QVERIFY(!file.ok());
  const QString message = QString::fromStdString(file.message());
  QVERIFY2(message.startsWith(out + QStringLiteral(": the file holds 1.0 GiB (")), qPrintable(message));
  QVERIFY2(message.contains(QStringLiteral("ulimit -v")), qPrintable(message));

  // A file that fits is read as usual under the same limit.
  const QString fits = dir.filePath(QStringLiteral("fits.safetensors"));
  QVERIFY(writeSparseSafetensors(fits, uint64_t(1) << 20));
  QVERIFY(setrlimit(RLIMIT_AS, &limited) == 0);
  const Expected<SafetensorsFile> small = SafetensorsFile::open(fits.toStdString());
  setrlimit(RLIMIT_AS, &saved);
  QVERIFY2(small.ok(), small.ok() ? "" : small.message().c_str());
  QCOMPARE(small->find("w")->byteSize(), std::size_t(1) << 20);
}

void TestSafetensors::openErrors() {
  QTemporaryDir dir;
  const std::string missing = dir.filePath(QStringLiteral("missing.safetensors")).toStdString();
  const Expected<SafetensorsFile> none = SafetensorsFile::open(missing);
  QVERIFY(!none.ok());
  QVERIFY(QString::fromStdString(none.message()).startsWith(QString::fromStdString(missing + ": ")));
  QVERIFY(QString::fromStdString(none.message()).contains(QString::fromLocal8Bit(std::strerror(ENOENT))));

  const QString emptyPath = dir.filePath(QStringLiteral("empty.safetensors"));
  {
    QFile f(emptyPath);
    QVERIFY(f.open(QIODevice::WriteOnly));
  }
  const Expected<SafetensorsFile> empty = SafetensorsFile::open(emptyPath.toStdString());
  QVERIFY(!empty.ok());
  QVERIFY(QString::fromStdString(empty.message()).contains(QStringLiteral("too short")));

  const Expected<SafetensorsFile> directory = SafetensorsFile::open(dir.path().toStdString());
  QVERIFY(!directory.ok());
  QVERIFY(QString::fromStdString(directory.message()).startsWith(dir.path()));
}

QTEST_APPLESS_MAIN(TestSafetensors)
#include "tst_safetensors.moc"
