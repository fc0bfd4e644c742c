// Tests for StringMap (support/StringMap.h), the open-addressing string map of the lowering's hot
// paths: every operation is checked against std::unordered_map as the oracle, through growth,
// colliding and empty keys, keys longer than an arena chunk, copies and moves.

#include "support/StringMap.h"

#include <QtTest/QtTest>

#include <random>
#include <string>
#include <unordered_map>
#include <vector>

using namespace lattice;

class TestStringMap : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void matchesUnorderedMap();
  void groupedMapMatchesUnorderedMap();
  void keysAreCopiedAndStable();
  void emptyAndLongKeys();
  void copyAndMove();
  void hashReadsOnlyTheKey();
  void lookupsInAnyOrder();
  void movedFromMapIsReusable();
};

void TestStringMap::matchesUnorderedMap() {
  // 20 000 operations over a key space of 3 000 names shaped like SSA stems: many repeats,
  // shared prefixes, several growths.
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> pick(0, 2999);
  StringMap<std::size_t> map;
  std::unordered_map<std::string, std::size_t> oracle;
  for (int step = 0; step < 20000; ++step) {
    const std::string key = "blocks_" + std::to_string(pick(rng)) + (step % 3 ? "_features" : "");
    if (step % 4 == 0) {
      const std::pair<std::size_t*, bool> inserted = map.insert(key, static_cast<std::size_t>(step));
      const auto expected = oracle.emplace(key, static_cast<std::size_t>(step));
      QCOMPARE(inserted.second, expected.second);
      QCOMPARE(*inserted.first, expected.first->second);
    } else {
      ++map[key];
      ++oracle[key];
    }
    QCOMPARE(map.size(), oracle.size());
  }
  for (const auto& [key, value] : oracle) {
    const std::size_t* found = map.find(key);
    QVERIFY2(found, key.c_str());
    QCOMPARE(*found, value);
  }
  QVERIFY(!map.find("blocks_3000"));
  QVERIFY(!map.contains("blocks_"));
  std::size_t visited = 0;
  map.forEach([&](std::string_view key, std::size_t value) {
    ++visited;
    QCOMPARE(value, oracle.at(std::string(key)));
  });
  QCOMPARE(visited, oracle.size());
}

void TestStringMap::groupedMapMatchesUnorderedMap() {
  // Keys grouped by their numbered prefix (a reserve() large enough turns grouping on):
  // prefixes shared by up to 40 keys (more than a group's 16 slots, so later keys go on from
  // their own hash), keys without a digit (placed by their own hash), keys that are their own
  // prefix, and lookups of absent keys that share a present key's prefix. Checked against
  // std::unordered_map through growth, and after a copy and a move.
  const char* suffixes[] = {"", "_features_in", "_active", "_weight", "_bias", "_running_mean",
                            "_running_var", "_features", ".weight", ".weight.weight", "x", "_y_z"};
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> block(0, 399);
  std::uniform_int_distribution<int> part(0, 39);
  std::uniform_int_distribution<int> suffix(0, 11);
  using Grouped = StringMap<std::size_t, KeyGrouping::ByNumberedPrefix>;
  Grouped small;
  small.reserve(100); // an index that stays in cache is not grouped
  QVERIFY(!small.grouped());
  QVERIFY(!small.hashKey("blocks.3.1.running_mean").grouped);
  Grouped map;
  map.reserve(Grouped::kGroupFromSlots / 2);
  QVERIFY(map.grouped());
  std::unordered_map<std::string, std::size_t> oracle;
  const auto makeKey = [&](int step) {
    if (step % 7 == 0) return std::string("relu") + std::string(static_cast<std::size_t>(part(rng)), 'u');
    if (step % 5 == 0) // one prefix with many keys
      return "hot_7" + std::string(static_cast<std::size_t>(part(rng)) + 1, 'a');
    return "blocks." + std::to_string(block(rng)) + "." + std::to_string(part(rng) % 3) + suffixes[suffix(rng)];
  };
  for (int step = 0; step < 60000; ++step) { // 13 656 keys: the index outgrows its reservation
    const std::string key = makeKey(step);
    QCOMPARE(map.contains(key), oracle.count(key) == 1);
    ++map[key];
    ++oracle[key];
  }
  QCOMPARE(map.size(), oracle.size());
  const auto sameAsOracle = [&](const auto& m) {
    for (const auto& [key, value] : oracle) {
      const std::size_t* found = m.find(key);
      if (!found || *found != value) return false;
    }
    return m.size() == oracle.size() && !m.contains("hot_7") && !m.contains("hot_7b") &&
           !m.contains("blocks.400.0") && !m.contains("blocks.1.0_other");
  };
  QVERIFY(sameAsOracle(map));
  auto copy = map;
  QVERIFY(sameAsOracle(copy));
  copy["hot_7" + std::string(50, 'a')] = 1; // a copy inserts with the grouping too
  QCOMPARE(*copy.find("hot_7" + std::string(50, 'a')), std::size_t(1));
  auto moved = std::move(map);
  QVERIFY(sameAsOracle(moved));
  QVERIFY(moved.grouped());
  // hashKey: the group is the prefix up to the last digit, or none without a digit.
  const auto k = moved.hashKey("blocks.3.1.running_mean");
  QVERIFY(k.grouped);
  QCOMPARE(k.group, stringMapHash("blocks.3.1"));
  const auto twin = moved.hashKey("blocks.3.1.running_mean.weight");
  QCOMPARE(twin.group, k.group);
  QVERIFY(twin.own != k.own);
  QCOMPARE(moved.hashKey("blocks.3.1").group, stringMapHash("blocks.3.1"));
  QCOMPARE(moved.hashKey("blocks.3.1").own, stringMapHash("blocks.3.1"));
  QVERIFY(!moved.hashKey("sparse_decompose").grouped);
  QCOMPARE(moved.hashKey("sparse_decompose").own, stringMapHash("sparse_decompose"));
  QVERIFY(!StringMap<int>().hashKey("blocks.3.1").grouped);

  // Keys inserted while the map is small (ungrouped) are still found, and not inserted twice,
  // once a reserve() turns grouping on: their placement changes with it.
  Grouped late;
  const std::vector<std::string> early = {"x_coords", "blocks.0.0.weight", "blocks_0_0", "input1", "add7"};
  for (std::size_t n = 0; n < early.size(); ++n)
    late[early[n]] = n + 1;
  QVERIFY(!late.grouped());
  late.reserve(Grouped::kGroupFromSlots / 2);
  QVERIFY(late.grouped());
  for (std::size_t n = early.size(); n-- > 0;) { // against insertion order: no nearby-entry shortcut
    const std::size_t* value = late.find(early[n]);
    QVERIFY2(value && *value == n + 1, early[n].c_str());
  }
  for (const std::string& key : early)
    QVERIFY(!late.insert(key, 99).second);
  QCOMPARE(late.size(), early.size());

  // numberedPrefixLength (eight bytes at a time) against a byte-by-byte scan, over keys of every
  // length up to 40 from an alphabet of digits, their neighbours ('/', ':'), letters, '.', '_'
  // and bytes with the high bit set.
  const std::string alphabet = std::string("0123456789/:aZ._") + char(0xB0) + char(0xB9) + char(0xFF);
  std::uniform_int_distribution<std::size_t> byte(0, alphabet.size() - 1);
  std::uniform_int_distribution<int> digitShare(0, 9);
  for (int trial = 0; trial < 20000; ++trial) {
    std::string key(static_cast<std::size_t>(trial % 41), ' ');
    const bool fewDigits = digitShare(rng) < 7;
    for (char& c : key) {
      c = alphabet[byte(rng)];
      if (fewDigits && c >= '0' && c <= '9') c = 'q';
    }
    if (fewDigits && !key.empty() && trial % 3 == 0) key[static_cast<std::size_t>(trial) % key.size()] = '7';
    std::size_t expected = key.size();
    while (expected > 0 && (key[expected - 1] < '0' || key[expected - 1] > '9'))
      --expected;
    QCOMPARE(numberedPrefixLength(key), expected);
  }
}

void TestStringMap::keysAreCopiedAndStable() {
  StringMap<int> map;
  std::string key = "stem.weight";
  map.insert(key, 1);
  key[0] = 'X'; // the map owns its copy
  QVERIFY(map.contains("stem.weight"));
  QVERIFY(!map.contains("Xtem.weight"));
  // Lookups take views of any string: a substring, a literal, a std::string.
  const std::string longer = "stem.weight.scales";
  QVERIFY(map.contains(std::string_view(longer).substr(0, 11)));
  // Keys keep their bytes across thousands of later inserts (arena chunks never move).
  for (int i = 0; i < 5000; ++i)
    map.insert("k" + std::to_string(i), i);
  int seen = 0;
  int value = 0;
  map.forEach([&](std::string_view k, int v) {
    if (k == "stem.weight") {
      ++seen;
      value = v;
    }
  });
  QCOMPARE(seen, 1);
  QCOMPARE(value, 1);
  QCOMPARE(*map.find("k4999"), 4999);
}

void TestStringMap::emptyAndLongKeys() {
  StringMap<int> map;
  QVERIFY(!map.find(""));
  map[""] = 5;
  QCOMPARE(*map.find(""), 5);
  const std::string huge(100000, 'a'); // larger than the largest arena chunk
  map.insert(huge, 6);
  QCOMPARE(*map.find(huge), 6);
  QVERIFY(!map.find(std::string(99999, 'a')));
  QCOMPARE(map.size(), std::size_t(2));
}

void TestStringMap::copyAndMove() {
  StringMap<int> a;
  for (int i = 0; i < 100; ++i)
    a.insert("n" + std::to_string(i), i);
  StringMap<int> b = a; // a deep copy: its own keys
  a["n1"] = 100;
  QCOMPARE(*b.find("n1"), 1);
  QCOMPARE(*a.find("n1"), 100);
  StringMap<int> c = std::move(a);
  QCOMPARE(c.size(), std::size_t(100));
  QCOMPARE(*c.find("n99"), 99);
  b = c;
  QCOMPARE(*b.find("n1"), 100);
  c.clear();
  QVERIFY(c.empty());
  QVERIFY(!c.find("n1"));
  c["again"] = 1;
  QCOMPARE(*c.find("again"), 1);
}

void TestStringMap::hashReadsOnlyTheKey() {
  // The hash reads a key's last 1..7 bytes with overlapping loads inside the key: a view into a
  // larger buffer must hash like a copy of the same bytes, whatever surrounds it, and changing
  // any one byte of the key must change the hash (for these keys; a collision is possible in
  // principle, but then the test names it). Lengths 0..40 cover every tail length and word count.
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> byte(0, 255);
  for (std::size_t length = 0; length <= 40; ++length) {
    std::string key(length, '\0');
    for (char& c : key) c = static_cast<char>(byte(rng));
    const std::uint64_t own = stringMapHash(key);
    for (const char fill : {'\0', '\xff', 'x'}) {
      const std::string buffer = std::string(9, fill) + key + std::string(9, fill);
      QCOMPARE(stringMapHash(std::string_view(buffer).substr(9, length)), own);
    }
    for (std::size_t at = 0; at < length; ++at) {
      std::string changed = key;
      changed[at] = static_cast<char>(changed[at] ^ 0x01);
      QVERIFY2(stringMapHash(changed) != own,
               qPrintable(QStringLiteral("length %1, byte %2").arg(length).arg(at)));
    }
  }
  QVERIFY(stringMapHash("ab") != stringMapHash("ba")); // the byte order counts
  QVERIFY(stringMapHash("a") != stringMapHash(std::string_view("a\0", 2))); // so does the length
}

void TestStringMap::lookupsInAnyOrder() {
  // find() first compares the few entries after the last one it found (lookups usually follow
  // insertion order); every order must still answer exactly what was inserted. Keys of equal
  // length next to each other ("m.0".."m.9") make a wrong nearby match possible if the compare
  // were loose.
  StringMap<int> map;
  std::vector<std::string> keys;
  for (int i = 0; i < 1000; ++i) {
    keys.push_back("m." + std::to_string(i % 10) + "." + std::to_string(i / 10));
    map.insert(keys.back(), i);
  }
  const auto check = [&](int i) {
    const int* found = map.find(keys[i]);
    QVERIFY2(found, keys[i].c_str());
    QCOMPARE(*found, i);
  };
  for (int i = 0; i < 1000; ++i) check(i);       // in order: every lookup near the last
  for (int i = 999; i >= 0; --i) check(i);       // backwards: never near
  for (int i = 0; i < 1000; i += 3) check(i);    // skipping: near, but not next
  for (int i = 0; i < 1000; ++i) {               // absent keys between present ones
    QVERIFY(!map.find(keys[i] + "x"));
    QVERIFY(!map.find("m." + std::to_string(i)));
    check(i);
  }
  check(999);
  map.insert("after", -1);                       // the hint points past the old end
  QCOMPARE(*map.find("after"), -1);
  check(0);
}

void TestStringMap::movedFromMapIsReusable() {
  StringMap<int> a;
  for (int i = 0; i < 50; ++i) a.insert("k" + std::to_string(i), i);
  QCOMPARE(*a.find("k10"), 10);
  StringMap<int> b = std::move(a);
  QCOMPARE(*b.find("k11"), 11);
  a.insert("fresh", 1); // a moved-from map works like a new one, with storage of its own
  QCOMPARE(*a.find("fresh"), 1);
  QVERIFY(!a.find("k11"));
  QCOMPARE(a.size(), std::size_t(1));
  QCOMPARE(*b.find("k49"), 49);
  QVERIFY(!b.find("fresh"));
  b = std::move(b); // self-move keeps the map
  QCOMPARE(b.size(), std::size_t(50));
}

QTEST_APPLESS_MAIN(TestStringMap)
#include "tst_string_map.moc"
