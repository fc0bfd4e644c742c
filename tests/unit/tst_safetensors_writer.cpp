// Tests for the safetensors writer: progress over every byte, cancel that leaves no file, deferred
// and sliced tensors streamed without being kept (checked by reading the file back), I/O errors
// (a file size limit) and inconsistent tensors refused before a byte is written.

#include "SafetensorsTestSupport.h"
#include "tensor/Safetensors.h"

#include <QtTest/QtTest>

#include <atomic>
#include <csignal>
#include <cstring>

#include <sys/resource.h>

using namespace lattice;
using namespace lattice::test;

class TestSafetensorsWriter : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void writerProgressCoversAllBytes();
  void writerCancelRemovesFile();
  void writerStreamsDeferredTensors();
  void writerStreamsSlicedTensors();
  void writerCancelWhileProducing();
  void writerReportsIoErrors();
  void writerRejectsInconsistentTensors();
};

void TestSafetensorsWriter::writerProgressCoversAllBytes() {
  // Larger than the writer's internal buffer and chunk sizes, so several calls are made.
  const std::size_t big = (std::size_t(9) << 20) + 3;
  std::vector<NamedTensor> tensors = {{"big", filled(DType::U8, {int64_t(big)}, 0x5a)},
                                      {"small", f32({2}, {1.0f, 2.0f})}};
  QTemporaryDir dir;
  const QString out = dir.filePath(QStringLiteral("big.safetensors"));
  std::vector<std::pair<uint64_t, uint64_t>> calls;
  const Status status = writeSafetensors(out.toStdString(), tensors, torchWeightsMetadata(),
                                         [&](uint64_t done, uint64_t total) {
                                           calls.emplace_back(done, total);
                                           return true;
                                         });
  QVERIFY(status.ok());
  const qint64 size = QFileInfo(out).size();
  QVERIFY(calls.size() >= 3);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    QCOMPARE(qint64(calls[i].second), size);
    if (i) QVERIFY(calls[i].first >= calls[i - 1].first);
  }
  QCOMPARE(qint64(calls.back().first), size);

  Expected<SafetensorsFile> file = SafetensorsFile::open(out.toStdString());
  QVERIFY(file.ok());
  QVERIFY(*file->find("big") == tensors[0].tensor);
  QVERIFY(*file->find("small") == tensors[1].tensor);
}

void TestSafetensorsWriter::writerCancelRemovesFile() {
  QTemporaryDir dir;
  const QString out = dir.filePath(QStringLiteral("cancel.safetensors"));
  int calls = 0;
  const Status status = writeSafetensors(out.toStdString(), {{"w", f32({1}, {1.0f})}}, std::nullopt,
                                         [&](uint64_t, uint64_t) { return ++calls < 2; });
  QVERIFY(!status.ok());
  QCOMPARE(calls, 2);
  QVERIFY(message(status).startsWith(out + QStringLiteral(": ")));
  QVERIFY(message(status).contains(QStringLiteral("cancelled")));
  QVERIFY(!QFileInfo::exists(out));
}

namespace {

// Element i of tensor `seed` is seed·1e6 + i (as U32): every byte says where it belongs.
class PatternProducer final : public TensorProducer {
public:
  PatternProducer(uint32_t seed, int64_t count) : m_seed(seed), m_count(count) {}
  void produce(uint8_t* dst) const override {
    for (int64_t i = 0; i < m_count; ++i) {
      const uint32_t v = m_seed * 1000000u + static_cast<uint32_t>(i);
      std::memcpy(dst + i * 4, &v, 4);
    }
  }

private:
  uint32_t m_seed;
  int64_t m_count;
};

TensorData pattern(uint32_t seed, int64_t count) {
  return TensorData::deferred(DType::U32, {count}, std::make_shared<PatternProducer>(seed, count));
}

// The same pattern computed in slices of `sliceElements`; counts the calls that computed the whole
// tensor, which a writer streaming slices never makes.
class SlicedPatternProducer final : public TensorProducer {
public:
  SlicedPatternProducer(uint32_t seed, int64_t count, int64_t sliceElements, std::atomic<int>* wholeCalls)
      : m_seed(seed), m_count(count), m_slice(sliceElements), m_wholeCalls(wholeCalls) {}
  void produce(uint8_t* dst) const override {
    ++*m_wholeCalls;
    fill(dst, 0, m_count);
  }
  std::size_t sliceBytes() const override { return static_cast<std::size_t>(m_slice) * 4; }
  void produceSlices(uint8_t* dst, std::size_t first, std::size_t count) const override {
    const int64_t begin = static_cast<int64_t>(first) * m_slice;
    const int64_t end = begin + static_cast<int64_t>(count) * m_slice;
    if (begin < 0 || end > m_count) std::abort(); // a slice outside the tensor is a writer bug
    fill(dst, begin, end);
  }

private:
  void fill(uint8_t* dst, int64_t begin, int64_t end) const {
    for (int64_t i = begin; i < end; ++i) {
      const uint32_t v = m_seed * 1000000u + static_cast<uint32_t>(i);
      std::memcpy(dst + (i - begin) * 4, &v, 4);
    }
  }

  uint32_t m_seed;
  int64_t m_count, m_slice;
  std::atomic<int>* m_wholeCalls;
};

// Checks that tensor `t` of a written file holds PatternProducer's values for `seed`.
bool holdsPattern(const NamedTensor& t, uint32_t seed, QString* where) {
  for (int64_t i = 0; i < t.tensor.numel(); ++i) {
    uint32_t v = 0;
    std::memcpy(&v, t.tensor.data() + i * 4, 4);
    if (v != seed * 1000000u + static_cast<uint32_t>(i)) {
      *where = QStringLiteral("tensor %1 element %2").arg(QString::fromStdString(t.key)).arg(i);
      return false;
    }
  }
  return true;
}

} // namespace

void TestSafetensorsWriter::writerStreamsDeferredTensors() {
  // Large deferred tensors (≥ 1 MiB) are produced on a worker while the previous one is written;
  // small ones in place; plain ones straight from memory. Keys a..h sort in this order (one dtype),
  // so large and small, deferred and plain alternate in the file.
  const int64_t large = (3 << 20) / 4 + 5, small = 100;
  std::vector<NamedTensor> tensors = {
      {"a", pattern(1, large)}, {"b", pattern(2, large)}, {"c", pattern(3, small)},
      {"d", filled(DType::U32, {7}, 0x5a)}, {"e", pattern(5, large)}, {"f", pattern(6, small)},
      {"g", pattern(7, large)}, {"h", pattern(8, large)},
  };
  QTemporaryDir dir;
  const QString out = dir.filePath(QStringLiteral("deferred.safetensors"));
  QVERIFY(writeSafetensors(out.toStdString(), tensors, std::nullopt).ok());
  Expected<SafetensorsFile> file = SafetensorsFile::open(out.toStdString());
  QVERIFY(file.ok());
  QCOMPARE(file->tensors().size(), tensors.size());
  for (const NamedTensor& t : file->tensors()) {
    const uint32_t seed = static_cast<uint32_t>(t.key[0] - 'a' + 1);
    if (t.key == "d") {
      QCOMPARE(t.tensor.byteSize(), std::size_t(28));
      QVERIFY(std::all_of(t.tensor.data(), t.tensor.data() + 28, [](uint8_t b) { return b == 0x5a; }));
      continue;
    }
    const int64_t n = t.tensor.numel();
    QVERIFY2(n == large || n == small, t.key.c_str());
    for (int64_t i = 0; i < n; ++i) {
      uint32_t v = 0;
      std::memcpy(&v, t.tensor.data() + i * 4, 4);
      if (v != seed * 1000000u + static_cast<uint32_t>(i))
        QFAIL(qPrintable(QStringLiteral("tensor %1 element %2").arg(QString::fromStdString(t.key)).arg(i)));
    }
  }
}

void TestSafetensorsWriter::writerStreamsSlicedTensors() {
  // A deferred tensor whose producer computes slices is written in pieces of about 1 MiB of whole
  // slices (pieces of 256 KiB and more on the worker, smaller ones in place) and only ever asked
  // for slices, so the writer never holds more than two pieces of it. Slices of 1237 elements (4948 bytes) do not divide 1 MiB, so the pieces' edges fall
  // inside no slice only if the writer rounds them; "b" is one slice; "d" has pieces below 256 KiB
  // only; plain and whole-only deferred tensors sit in between.
  std::atomic<int> wholeCalls{0};
  const auto sliced = [&](uint32_t seed, int64_t slices, int64_t sliceElements) {
    return TensorData::deferred(DType::U32, {slices * sliceElements},
                                std::make_shared<SlicedPatternProducer>(seed, slices * sliceElements, sliceElements,
                                                                        &wholeCalls));
  };
  std::vector<NamedTensor> tensors = {
      {"a", sliced(1, 700, 1237)},  {"b", sliced(2, 1, 1237)},       {"c", pattern(3, (2 << 20) / 4 + 3)},
      {"d", sliced(4, 50, 1000)},   {"e", filled(DType::U32, {9}, 0x5a)}, {"f", sliced(6, 3001, 509)},
  };
  QTemporaryDir dir;
  const QString out = dir.filePath(QStringLiteral("sliced.safetensors"));
  uint64_t lastReport = 0;
  int reports = 0;
  QVERIFY(writeSafetensors(out.toStdString(), tensors, std::nullopt, [&](uint64_t written, uint64_t) {
            lastReport = written, ++reports;
            return true;
          }).ok());
  QCOMPARE(wholeCalls.load(), 0);
  QVERIFY2(reports > 8, qPrintable(QString::number(reports))); // "a" and "f" alone are 3 pieces or more each
  QCOMPARE(lastReport, static_cast<uint64_t>(QFileInfo(out).size()));
  Expected<SafetensorsFile> file = SafetensorsFile::open(out.toStdString());
  QVERIFY(file.ok());
  QCOMPARE(file->tensors().size(), tensors.size());
  for (std::size_t n = 0; n < tensors.size(); ++n) {
    const NamedTensor& t = file->tensors()[n];
    QCOMPARE(t.key, tensors[n].key);
    QCOMPARE(t.tensor.byteSize(), tensors[n].tensor.byteSize());
    if (t.key == "e") continue;
    QString where;
    QVERIFY2(holdsPattern(t, static_cast<uint32_t>(t.key[0] - 'a' + 1), &where), qPrintable(where));
  }
}

void TestSafetensorsWriter::writerCancelWhileProducing() {
  // Cancelling while a worker produces the next tensor waits for it and removes the file.
  const int64_t large = (2 << 20) / 4;
  std::vector<NamedTensor> tensors = {{"a", pattern(1, large)}, {"b", pattern(2, large)},
                                      {"c", pattern(3, large)}};
  QTemporaryDir dir;
  const QString out = dir.filePath(QStringLiteral("cancel.safetensors"));
  const Status status = writeSafetensors(out.toStdString(), tensors, std::nullopt,
                                         [](uint64_t written, uint64_t) { return written < (1u << 20); });
  QVERIFY(!status.ok());
  QVERIFY(message(status).contains(QStringLiteral("cancelled")));
  QVERIFY(!QFileInfo::exists(out));
}

void TestSafetensorsWriter::writerReportsIoErrors() {
  QTemporaryDir dir;
  const QString noDir = dir.filePath(QStringLiteral("no/such/dir/w.safetensors"));
  const Status missingDir = writeSafetensors(noDir.toStdString(), {}, torchWeightsMetadata());
  QVERIFY(!missingDir.ok());
  QVERIFY(message(missingDir).startsWith(noDir + QStringLiteral(": ")));
  QVERIFY(message(missingDir).contains(QString::fromLocal8Bit(std::strerror(ENOENT))));

  // A file size limit makes write() fail with EFBIG part-way through the data.
  const QString limited = dir.filePath(QStringLiteral("limited.safetensors"));
  rlimit saved{};
  QVERIFY(getrlimit(RLIMIT_FSIZE, &saved) == 0);
  if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < 4096) QSKIP("file size limit already too small");
  const auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 4096;
  QVERIFY(setrlimit(RLIMIT_FSIZE, &small) == 0);
  const Status tooLarge = writeSafetensors(limited.toStdString(),
                                           {{"w", filled(DType::U8, {int64_t(3) << 20}, 1)}}, std::nullopt);
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previousHandler);
  QVERIFY(!tooLarge.ok());
  QVERIFY(message(tooLarge).startsWith(limited + QStringLiteral(": ")));
  QVERIFY2(message(tooLarge).contains(QString::fromLocal8Bit(std::strerror(EFBIG))),
           qPrintable(message(tooLarge)));
  QVERIFY(!QFileInfo::exists(limited));
}

void TestSafetensorsWriter::writerRejectsInconsistentTensors() {
  QTemporaryDir dir;
  const QString out = dir.filePath(QStringLiteral("bad.safetensors"));
  const Status duplicate =
      writeSafetensors(out.toStdString(), {{"w", f32({1}, {1.0f})}, {"w", f32({1}, {2.0f})}}, std::nullopt);
  QVERIFY(!duplicate.ok());
  QVERIFY(message(duplicate).contains(QStringLiteral("duplicate tensor key 'w'")));

  const Status reserved =
      writeSafetensors(out.toStdString(), {{"__metadata__", f32({1}, {1.0f})}}, std::nullopt);
  QVERIFY(!reserved.ok());
  QVERIFY(message(reserved).contains(QStringLiteral("__metadata__")));

  auto storage = std::make_shared<std::vector<uint8_t>>(12, 0);
  const TensorData wrongSize =
      TensorData::view(DType::F32, {2, 2}, storage->data(), storage->size(), storage);
  const Status mismatch = writeSafetensors(out.toStdString(), {{"w", wrongSize}}, std::nullopt);
  QVERIFY(!mismatch.ok());
  QVERIFY(message(mismatch).contains(QStringLiteral("tensor 'w'")));
  QVERIFY(message(mismatch).contains(QStringLiteral("12 bytes")));
  QVERIFY(!QFileInfo::exists(out));
}

QTEST_APPLESS_MAIN(TestSafetensorsWriter)
#include "tst_safetensors_writer.moc"
