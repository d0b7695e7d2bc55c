import Foundation
import Strata
import StrataSyncProtocol

/// SplitMix64 (Steele, Lea and Flood): a generator whose whole state is one number, so that
/// a differential run is replayed from its seed, and one query case from the seed and the
/// case's index alone, whatever order the cases ran in.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// The generator of case `index` of the run with `seed`.
    init(seed: UInt64, index: Int) {
        var mixer = SplitMix64(seed: seed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        state = mixer.next()
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in the range (the modulo's bias is far below anything a test notices).
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    mutating func chance(_ probability: Double) -> Bool {
        Double(next() >> 11) / 9_007_199_254_740_992.0 < probability
    }

    /// An element of a list the generator itself made non-empty.
    mutating func pick<Element>(_ items: [Element]) -> Element { items[int(0...items.count - 1)] }
}

/// The records of one zone of a differential run, made from a seed: live `CD_Item` records
/// with fields of every kind the wire has (each field absent or null in some of them),
/// records that must never match (deleted items, another type with the same field names),
/// and the pushes that put them on the server.
struct QueryDataset: Sendable {
    static let recordType = "CD_Item"
    static let otherType = "CD_Other"

    /// The fields of `CD_Item` and the one kind each holds (a zone keeps one kind per field).
    static let fields: [(name: String, kind: FieldValue.Kind)] = [
        ("CD_title", .string), ("CD_notes", .string), ("CD_count", .int), ("CD_score", .double), ("CD_done", .bool),
        ("CD_due", .date), ("CD_uuid", .uuid), ("CD_owner", .reference), ("CD_amount", .decimal), ("CD_site", .url),
        ("CD_blob", .bytes),
    ]

    /// Live items by record name: their fields after every push, nulls included.
    private(set) var items: [String: [String: FieldValue]] = [:]
    private(set) var deletedItems: [String: [String: FieldValue]] = [:]
    private(set) var others: [String: [String: FieldValue]] = [:]
    /// Every value each field holds in any record, the constants predicates are made of.
    private(set) var values: [String: [FieldValue]] = [:]
    /// The pushes that fill the zone, in order; each within the server's 400 changes.
    private(set) var pushes: [[RecordChange]] = []

    init(seed: UInt64, items count: Int) {
        var random = SplitMix64(seed: seed)
        var names: Set<String> = []
        func newName(_ prefixes: [String]) -> String {
            while true {
                let name = random.pick(prefixes) + String(random.int(0...999))
                if names.insert(name).inserted { return name }
            }
        }
        let itemPrefixes = ["item-", "Item-", "ITEM_", "it", "x", "X.", "_", "~", "a-", "0", "9z"]
        let liveNames = (0..<count).map { _ in newName(itemPrefixes) }
        let deletedNames = (0..<max(count / 12, 4)).map { _ in newName(itemPrefixes) }
        var initial: [RecordChange] = []
        var later: [RecordChange] = []
        let references = liveNames + deletedNames + ["ghost-1", "Item-"]
        for name in liveNames + deletedNames {
            var fields: [String: FieldValue] = [:]
            for (field, kind) in Self.fields {
                switch random.int(0...99) {
                case 0..<12: break
                case 12..<24: fields[field] = .null
                default: fields[field] = Self.value(kind, references: references, &random)
                }
            }
            initial.append(Self.upsert(name, type: Self.recordType, fields, wall: 1))
            if deletedNames.contains(name) {
                deletedItems[name] = fields
                later.append(
                    RecordChange(
                        recordType: Self.recordType, recordName: name, operation: .delete,
                        deleteClock: HybridLogicalClock(wallMilliseconds: 2, counter: 0, node: "a")))
                continue
            }
            if random.chance(0.15) {
                // A later edit of some fields: the query sees the merged record.
                var edit: [String: FieldValue] = [:]
                for _ in 0..<random.int(1...3) {
                    let (field, kind) = random.pick(Self.fields)
                    edit[field] = random.chance(0.25) ? .null : Self.value(kind, references: references, &random)
                }
                fields.merge(edit) { $1 }
                later.append(Self.upsert(name, type: Self.recordType, edit, wall: 2))
            }
            items[name] = fields
        }
        // Another type under the same field names, some of another kind (a type's kinds are
        // its own), some records named as items and deleted items are.
        let otherKinds: [String: FieldValue.Kind] = ["CD_count": .string, "CD_title": .int, "CD_done": .double]
        for index in 0..<max(count / 12, 4) {
            var name = index % 3 == 0 ? random.pick(liveNames + deletedNames) : newName(["other-", "item-"])
            if others[name] != nil { name = newName(["other-"]) }
            var fields: [String: FieldValue] = [:]
            for (field, kind) in Self.fields where random.chance(0.8) {
                fields[field] = Self.value(otherKinds[field] ?? kind, references: references, &random)
            }
            others[name] = fields
            initial.append(Self.upsert(name, type: Self.otherType, fields, wall: 1))
        }
        // In a fixed order: a dictionary's order changes from one process to the next.
        for group in [items, deletedItems, others] {
            for name in group.keys.sorted() {
                for (field, _) in Self.fields {
                    if let value = group[name]?[field], value != .null { values[field, default: []].append(value) }
                }
            }
        }
        let changes = initial + later
        pushes = stride(from: 0, to: changes.count, by: 400).map { Array(changes[$0..<min($0 + 400, changes.count)]) }
    }

    private static func upsert(_ name: String, type: String, _ fields: [String: FieldValue], wall: Int64) -> RecordChange {
        let clock = HybridLogicalClock(wallMilliseconds: wall, counter: 0, node: "a")
        return RecordChange(
            recordType: type, recordName: name, operation: .upsert, fields: fields, clocks: fields.mapValues { _ in clock })
    }

    // MARK: Values

    /// Strings that trip up case, diacritic and Unicode handling, quoting, and the wildcard
    /// and escape characters of `LIKE` (both the predicate's and SQL's).
    static let specialStrings: [String] = [
        "", " ", "  ", "a", "A", "b", "ab", "Ab", "AB", "abc", "abC", "abc ", " abc", "abd", "abcd", "café", "cafe\u{301}",
        "CAFÉ", "CAFE\u{301}", "cafe", "Cafe", "caf", "cafés", "naïve", "nai\u{308}ve", "Ärger", "A\u{308}rger", "ärger",
        "straße", "Straße", "STRASSE", "strasse", "ß", "SS", "ss", "İstanbul", "istanbul", "Istanbul", "ISTANBUL",
        "ıstanbul", "I\u{307}stanbul", "ı", "i", "I", "İ", "Ωμέγα", "ωμέγα", "ΩΜΕΓΑ", "Σίσυφος", "σίσυφοσ", "ς", "😀",
        "😀😀", "a😀b", "👍🏽", "👍", "🇫🇷", "日本語", "日本", "*", "?", "a*b", "a?b", "a*", "*b", "%", "50%", "a%b", "_", "a_b",
        "snake_case", "\\", "a\\b", "\\*", "'", "it's", "\"", "say \"hi\"", "line1\nline2", "line1\r\nline2", "\n",
        "tab\there", "[a]", "(x)", "a.b", "a+b", "^$", "x|y", "Buy milk", "buy milk", "Buy", "Buy eggs", "BUY MILK",
        "Buy milk ", " Buy milk", "Zebra", "zebra", "~", "~tilde", "\u{7F}", "\u{A0}nbsp", "ﬁle", "file", "Ⅻ", "½",
        "x\u{200B}y", "Z", "z", "0", "10", "9", "-1", "1.5",
    ]

    /// Prefixes many strings share, so that `BEGINSWITH` and ranges split them finely.
    static let stems = ["item", "Item", "ITEM", "ite", "items", "itém", "ite\u{301}m", "task", "Task", "tâche", "Ωmega"]
    static let words = ["alpha", "beta", "Gamma", "delta", "épée", "ZETA", "eta", "θ", "milk", "Milk"]

    static let specialInts: [Int64] = [
        .min, .min + 1, -9_007_199_254_740_993, -9_007_199_254_740_992, -1_000_000_007, -100, -42, -2, -1, 0, 0, 1, 1, 2, 3,
        5, 7, 10, 42, 99, 100, 1_000_000, 9_007_199_254_740_991, 9_007_199_254_740_992, 9_007_199_254_740_993,
        9_007_199_254_740_994, .max - 1, .max,
    ]

    static let specialDoubles: [Double] = [
        -0.0, 0.0, 0.1, 0.2, 0.30000000000000004, 0.3, 0.5, -0.5, 1.0, -1.0, 1.5, 2.5, 3.141592653589793, 2.0 / 3.0, 42.0,
        1e15, 9_007_199_254_740_992.0, 9_007_199_254_740_994.0, 1e300, -1e300, .greatestFiniteMagnitude,
        -.greatestFiniteMagnitude, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, 1e-300,
    ]

    static let specialDates: [Double] = [
        -978_307_200, -1e9, -86_400.5, -1, 0, 0.001, 0.5, 1, 86_400, 700_000_000, 700_000_000.25, 800_000_000.123456, 1e9,
        4e9,
    ]

    static let decimals = [
        "0", "1", "1.5", "-2.25", "1.00000000000000000001", "0.1", "0.10", "123456789012345678901234567890", "-0.000001",
        "3.14159265358979323846", "1000", "1e3", "-7",
    ]

    static let uuids: [UUID] = {
        var random = SplitMix64(seed: 0x55_1D)
        var result = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))]
        result.append(UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)))
        for _ in 0..<14 {
            let (a, b) = (random.next(), random.next())
            let bytes = (0..<16).map { UInt8(truncatingIfNeeded: ($0 < 8 ? a : b) >> (8 * UInt64($0 % 8))) }
            result.append(
                UUID(
                    uuid: (
                        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                        bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                    )))
        }
        return result
    }()

    static let urls = [
        "https://example.com/a", "https://example.com/b", "https://EXAMPLE.com/a", "mailto:someone@example.com",
        "file:///tmp/x%20y",
    ]

    static let blobs = [Data(), Data([0]), Data([1, 2, 3]), Data("hello".utf8)]

    /// A string from the special ones, a stem with a number, or words.
    static func string(_ random: inout SplitMix64) -> String {
        switch random.int(0...9) {
        case 0...3: random.pick(specialStrings)
        case 4...6: random.pick(stems) + random.pick([" ", "-", "_", "", "."]) + String(random.int(0...120))
        case 7: random.pick(words) + random.pick([" ", "\n", ", "]) + random.pick(words)
        default: random.pick(stems) + " " + random.pick(specialStrings)
        }
    }

    static func value(_ kind: FieldValue.Kind, references: [String], _ random: inout SplitMix64) -> FieldValue {
        switch kind {
        case .string: return .string(string(&random))
        case .int: return .int(random.chance(0.4) ? random.pick(specialInts) : Int64(random.int(-50...50)))
        case .double:
            return .double(random.chance(0.4) ? random.pick(specialDoubles) : Double(random.int(-400...400)) / 8)
        case .bool: return .bool(random.chance(0.5))
        case .date:
            return .date(
                random.chance(0.4) ? random.pick(specialDates) : 700_000_000 + Double(random.int(-50_000...50_000)) * 97.25)
        case .uuid: return .uuid(random.pick(uuids))
        case .reference: return .reference(random.pick(references))
        case .decimal: return .decimal(random.pick(decimals))
        case .url: return .url(random.pick(urls))
        case .bytes: return .bytes(random.pick(blobs))
        case .null, .asset: return .null
        }
    }
}

/// The oracle's view of a record, copied from the server's `SyncStore.predicateObject` and
/// `foundationValue` (the mapping that defines what a predicate sees): its fields as the
/// Foundation values the client's predicate was written against, and `recordName`; null
/// fields absent, so that they compare as nil.
enum QueryOracle {
    static func predicateObject(name: String, fields: [String: FieldValue]) -> [String: Any] {
        var object: [String: Any] = ["recordName": name]
        for (field, value) in fields {
            if let value = foundationValue(value) { object[field] = value }
        }
        return object
    }

    static func foundationValue(_ value: FieldValue) -> Any? {
        switch value {
        case .null: nil
        case .string(let text), .reference(let text): text
        case .int(let number): number
        case .double(let number): number
        case .bool(let flag): flag
        case .date(let seconds): Date(timeIntervalSinceReferenceDate: seconds)
        case .bytes(let data): data
        case .asset(let reference): reference.sha256
        case .decimal(let text): Decimal(string: text) ?? text
        case .uuid(let uuid): uuid
        case .url(let text): URL(string: text) ?? text
        }
    }

    /// THE SORT RULE of queries, which the server must follow: each key in turn, nil first
    /// when ascending and last when descending, strings by Unicode scalar (code point)
    /// order, numbers by value (exactly: integers and decimals are not rounded to doubles),
    /// false before true, dates by time, UUIDs by their upper-case `uuidString`; ties after
    /// every key broken by record name, in code point order, in the direction of the last key
    /// (ascending with no key).
    static func precedes(
        _ lhs: (name: String, fields: [String: FieldValue]), _ rhs: (name: String, fields: [String: FieldValue]),
        by keys: [SortKey]
    ) -> Bool {
        for key in keys {
            let order = compare(sortValue(lhs, key.field), sortValue(rhs, key.field))
            if order != .orderedSame { return key.ascending == (order == .orderedAscending) }
        }
        let byName = compareScalars(lhs.name, rhs.name)
        return (keys.last?.ascending ?? true) ? byName == .orderedAscending : byName == .orderedDescending
    }

    static func sortValue(_ record: (name: String, fields: [String: FieldValue]), _ field: String) -> FieldValue {
        field == "recordName" ? .string(record.name) : record.fields[field] ?? .null
    }

    /// Two values of one field under the sort rule (nil first); values of different kinds,
    /// which one field of one type never holds, by kind name.
    static func compare(_ lhs: FieldValue, _ rhs: FieldValue) -> ComparisonResult {
        switch (lhs, rhs) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case (.string(let a), .string(let b)), (.reference(let a), .reference(let b)), (.url(let a), .url(let b)):
            return compareScalars(a, b)
        case (.int(let a), .int(let b)): return order(a, b)
        case (.double(let a), .double(let b)), (.date(let a), .date(let b)): return order(a, b)
        case (.bool(let a), .bool(let b)): return order(a ? 1 : 0, b ? 1 : 0)
        case (.decimal(let a), .decimal(let b)):
            guard let x = Decimal(string: a), let y = Decimal(string: b) else { return compareScalars(a, b) }
            return order(x, y)
        case (.uuid(let a), .uuid(let b)): return compareScalars(a.uuidString, b.uuidString)
        case (.bytes(let a), .bytes(let b)):
            return a.lexicographicallyPrecedes(b) ? .orderedAscending : a == b ? .orderedSame : .orderedDescending
        default: return compareScalars(lhs.kind.rawValue, rhs.kind.rawValue)
        }
    }

    static func compareScalars(_ lhs: String, _ rhs: String) -> ComparisonResult {
        if lhs.unicodeScalars.elementsEqual(rhs.unicodeScalars) { return .orderedSame }
        return lhs.unicodeScalars.lexicographicallyPrecedes(rhs.unicodeScalars) ? .orderedAscending : .orderedDescending
    }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
    }
}

/// A generated predicate before it is sent: a tree whose leaves are comparisons already
/// formatted by `NSPredicate(format:argumentArray:)`, as a client writes them, so that a
/// disagreement can be shrunk to the smallest subtree that still shows it.
indirect enum PredicateTree: Sendable {
    case leaf(String)
    case and([PredicateTree])
    case or([PredicateTree])
    case not(PredicateTree)

    /// The format string of the whole tree, each compound term parenthesized.
    var format: String {
        switch self {
        case .leaf(let text): text
        case .and(let terms): terms.map { "(\($0.format))" }.joined(separator: " AND ")
        case .or(let terms): terms.map { "(\($0.format))" }.joined(separator: " OR ")
        case .not(let term): "NOT (\(term.format))"
        }
    }

    /// This tree and every subtree in it.
    var subtrees: [PredicateTree] {
        switch self {
        case .leaf: [self]
        case .and(let terms), .or(let terms): [self] + terms.flatMap(\.subtrees)
        case .not(let term): [self] + term.subtrees
        }
    }
}

/// Makes one query case from its generator: a predicate from the grammar (comparisons of
/// every operator with options, constants mostly taken from the data, nil, constants on the
/// left, `recordName`, `ANY`/`ALL`/`NONE`, fields no record has, key path against key path,
/// functions and arithmetic, `AND`/`OR`/`NOT` to depth 3), sort keys and a limit.
struct QueryCaseGenerator {
    let dataset: QueryDataset
    var random: SplitMix64

    /// Names a query may compare `recordName` with: every record's, and near misses.
    private let recordNames: [String]

    private static let unknownFields = ["CD_missing", "CD_Title", "cd_count", "title", "CD_title_x"]
    private static let optionSets = ["[c]", "[d]", "[cd]", "[n]", "[cn]", "[cdn]"]
    private static let regexes = [
        ".*", "a.*", "[a-z]+", "[A-Z].*", ".*[0-9]", "(?i)item.*", ".*\\s.*", "\\p{L}+", ".", "", "x|y", "caf.",
        "it.m.*", "[", "(", "a{2,}", ".*é.*", "\\d+", "[^a-z]*", "ite\u{301}m.*", "Ω.*", "..",
    ]
    private static let likePatterns = [
        "*", "?", "a*", "*a*", "item*", "*\\**", "???", "*?", "\\?", "it?m*", "", "*%*", "*_*", "*\\\\*", "I*", "*é*",
    ]

    init(dataset: QueryDataset, random: SplitMix64) {
        self.dataset = dataset
        self.random = random
        recordNames =
            [dataset.items, dataset.deletedItems, dataset.others].flatMap(\.keys).sorted() + [
                "item-", "ITEM", "Item-1", "x", "~", "",
            ]
    }

    // MARK: Predicates

    mutating func predicate(depth: Int = 1) -> PredicateTree {
        if depth > 3 || random.chance(depth == 1 ? 0.4 : 0.6) { return leaf() }
        switch random.int(0...9) {
        case 0...4: return .and((0..<random.int(2...3)).map { _ in predicate(depth: depth + 1) })
        case 5...7: return .or((0..<random.int(2...3)).map { _ in predicate(depth: depth + 1) })
        default: return .not(predicate(depth: depth + 1))
        }
    }

    mutating func leaf() -> PredicateTree {
        switch random.int(0...99) {
        case 0..<3: return .leaf(random.chance(0.5) ? "TRUEPREDICATE" : "FALSEPREDICATE")
        case 3..<10: return nilComparison()
        case 10..<14: return unknownFieldComparison()
        case 14..<22: return recordNameComparison()
        case 22..<27: return keyPathComparison()
        case 27..<31: return functionComparison()
        default:
            let (field, kind) = random.pick(QueryDataset.fields)
            return comparison(field, kind, pool: dataset.values[field] ?? [])
        }
    }

    /// `field <op> constant`, sometimes `constant <op> field`, sometimes under `ANY`, `ALL`
    /// or `NONE`.
    private mutating func comparison(_ field: String, _ kind: FieldValue.Kind, pool: [FieldValue]) -> PredicateTree {
        let op = comparisonOperator(for: kind)
        let isText = ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES"].contains(op)
        let options = random.chance(isText || kind == .string ? 0.5 : 0.05) ? random.pick(Self.optionSets) : ""
        let (constant, arguments) = self.constant(for: op, kind: kind, pool: pool)
        if random.chance(0.12) {
            return .leaf(formatted("\(constant) \(op)\(options) %K", arguments + [field]))
        }
        let modifier = random.chance(0.12) ? random.pick(["ANY ", "ALL ", "NONE ", "SOME "]) : ""
        return .leaf(formatted("\(modifier)%K \(op)\(options) \(constant)", [field] + arguments))
    }

    private mutating func comparisonOperator(for kind: FieldValue.Kind) -> String {
        let ordered = ["==", "!=", "<", "<=", ">", ">=", "BETWEEN", "IN"]
        let text = ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES"]
        switch kind {
        case .string, .reference: return random.chance(0.5) ? random.pick(text) : random.pick(ordered)
        case .int, .double, .date, .decimal, .bool: return random.chance(0.05) ? random.pick(text) : random.pick(ordered)
        default: return random.chance(0.1) ? random.pick(text + ordered) : random.pick(["==", "!=", "IN"])
        }
    }

    /// The right side for the operator: a format piece and its arguments.
    private mutating func constant(
        for op: String, kind: FieldValue.Kind, pool: [FieldValue]
    ) -> (String, [Any]) {
        switch op {
        case "IN":
            if random.chance(0.1) { return ("%@", [text(pool)]) }
            var pieces: [String] = []
            var arguments: [Any] = []
            for _ in 0..<random.int(0...5) {
                if random.chance(0.08) {
                    pieces.append("nil")
                } else {
                    pieces.append("%@")
                    arguments.append(scalar(kind: kind, pool: pool))
                }
            }
            return ("{" + pieces.joined(separator: ", ") + "}", arguments)
        case "BETWEEN":
            let (low, high) = (scalar(kind: kind, pool: pool), scalar(kind: kind, pool: pool))
            return ("{%@, %@}", [low, high])
        case "LIKE": return ("%@", [likePattern(pool)])
        case "MATCHES": return ("%@", [regex(pool)])
        case "BEGINSWITH", "ENDSWITH", "CONTAINS": return ("%@", [text(pool)])
        default: return ("%@", [scalar(kind: kind, pool: pool)])
        }
    }

    /// A constant for a field: mostly one of its values (so that matches happen), sometimes
    /// a near miss, a fresh value, or a value of another field, of another kind.
    private mutating func scalar(kind: FieldValue.Kind, pool: [FieldValue]) -> Any {
        let roll = random.int(0...99)
        if roll < 10, let values = dataset.values[random.pick(QueryDataset.fields).name], !values.isEmpty,
            let constant = QueryOracle.foundationValue(random.pick(values))
        {
            return constant
        }
        if roll < 18 || pool.isEmpty { return near(QueryDataset.value(kind, references: recordNames, &random)) }
        let value = random.pick(pool)
        if roll < 30 { return near(value) }
        return QueryOracle.foundationValue(value) ?? ""
    }

    /// A value close to one of the data: a number one step off or of another numeric type,
    /// a string spelled otherwise, a date a millisecond away.
    private mutating func near(_ value: FieldValue) -> Any {
        switch value {
        case .int(let number):
            switch random.int(0...4) {
            case 0: return number &+ 1
            case 1: return number &- 1
            // Past 2^53 the double is another number, which compares unequal exactly.
            case 2: return Double(number)
            case 3: return Double(number) + 0.5
            default: return Decimal(number)
            }
        case .double(let number):
            return random.chance(0.5) ? number + 0.5 : Int64(exactly: number.rounded()) ?? number
        case .date(let seconds):
            return random.chance(0.8)
                ? Date(timeIntervalSinceReferenceDate: seconds + (random.chance(0.5) ? 0.001 : -1)) : seconds
        case .decimal(let text):
            return random.chance(0.5) ? Decimal(string: text + "1") ?? Decimal(1) : Double(text) ?? 0.5
        case .string(let text), .reference(let text): return variant(text)
        case .bool(let flag): return random.chance(0.5) ? Int64(flag ? 1 : 0) : Int64(2)
        // The text of a UUID or URL is a string, which equals neither.
        case .uuid(let uuid): return random.chance(0.5) ? uuid.uuidString : uuid.uuidString.lowercased()
        case .url(let text): return text
        default: return QueryOracle.foundationValue(value) ?? ""
        }
    }

    /// A string for `BEGINSWITH`, `CONTAINS`…: a piece of a value, or the value otherwise spelled.
    private mutating func text(_ pool: [FieldValue]) -> String {
        var source = QueryDataset.string(&random)
        if !pool.isEmpty, random.chance(0.85), case .string(let value) = random.pick(pool) { source = value }
        if !pool.isEmpty, case .reference(let value) = random.pick(pool) { source = value }
        return random.chance(0.2) ? source : variant(source)
    }

    private mutating func variant(_ text: String) -> String {
        let characters = Array(text)
        let scalars = Array(text.unicodeScalars)
        let cut = random.int(0...max(characters.count, 1))
        switch random.int(0...12) {
        case 0: return text.uppercased()
        case 1: return text.lowercased()
        case 2: return text.decomposedStringWithCanonicalMapping
        case 3: return text.precomposedStringWithCanonicalMapping
        case 4: return text.folding(options: [.diacriticInsensitive], locale: nil)
        case 5: return String(characters.prefix(cut))
        case 6: return String(characters.suffix(cut))
        case 7: return String(characters.dropFirst(cut / 2).prefix(random.int(1...3)))
        case 8:
            var result = String.UnicodeScalarView()
            result.append(contentsOf: scalars.prefix(random.int(0...scalars.count)))
            return String(result)
        case 9: return text + random.pick(["x", " ", "\u{301}", "é"])
        case 10: return String(characters.dropLast())
        case 11: return text.capitalized
        default: return random.pick(QueryDataset.specialStrings)
        }
    }

    private mutating func likePattern(_ pool: [FieldValue]) -> String {
        if random.chance(0.3) { return random.pick(Self.likePatterns) }
        var pattern = ""
        for character in text(pool) {
            switch random.int(0...9) {
            case 0: pattern += "?"
            case 1: pattern += "*"
            default: pattern.append(character)
            }
        }
        if random.chance(0.3) { pattern = "*" + pattern }
        if random.chance(0.3) { pattern += "*" }
        return pattern
    }

    private mutating func regex(_ pool: [FieldValue]) -> String {
        if random.chance(0.4) { return random.pick(Self.regexes) }
        let source = text(pool)
        let escaped = NSRegularExpression.escapedPattern(for: String(source.prefix(random.int(0...6))))
        return random.pick(["", ".*"]) + escaped + random.pick([".*", ".", "", ".+"])
    }

    private mutating func nilComparison() -> PredicateTree {
        let field = random.pick(QueryDataset.fields.map(\.name) + ["recordName", "CD_missing"])
        let format = random.pick([
            "%K == nil", "%K != nil", "nil == %K", "nil != %K", "%K < nil", "%K >= nil", "%K BEGINSWITH nil",
            "%K IN {nil}", "NOT %K == nil", "ANY %K == nil", "ALL %K != nil",
        ])
        return .leaf(formatted(format, [field]))
    }

    /// A field no record has (or a misspelling of one that they have) against a constant.
    private mutating func unknownFieldComparison() -> PredicateTree {
        let field = random.pick(Self.unknownFields)
        let (_, kind) = random.pick(QueryDataset.fields)
        return comparison(field, kind, pool: dataset.values[QueryDataset.fields.first { $0.kind == kind }?.name ?? ""] ?? [])
    }

    private mutating func recordNameComparison() -> PredicateTree {
        comparison("recordName", .string, pool: recordNames.map { FieldValue.string($0) })
    }

    /// Two fields compared with each other (a reference with `recordName` among them).
    private mutating func keyPathComparison() -> PredicateTree {
        let pairs = [
            ("CD_title", "CD_notes"), ("CD_count", "CD_score"), ("CD_count", "CD_amount"), ("CD_owner", "recordName"),
            ("CD_title", "recordName"), ("CD_due", "CD_due"), ("CD_score", "CD_amount"), ("CD_count", "CD_done"),
            ("CD_notes", "CD_title"), ("CD_title", "CD_missing"),
        ]
        let (left, right) = random.pick(pairs)
        let op = random.pick(["==", "!=", "<", "<=", ">", ">=", "BEGINSWITH", "CONTAINS", "ENDSWITH", "LIKE", "IN"])
        let options = random.chance(0.3) ? random.pick(Self.optionSets) : ""
        return .leaf(formatted("%K \(op)\(options) %K", [left, right]))
    }

    /// Functions, arithmetic and key paths through a field.
    private mutating func functionComparison() -> PredicateTree {
        let numeric = random.pick(["CD_count", "CD_score", "CD_amount", "CD_done"])
        let textual = random.pick(["CD_title", "CD_notes", "CD_owner"])
        let number = Int64(random.int(-3...12))
        switch random.int(0...8) {
        case 7: return .leaf(formatted("%K.length > %@", [textual, number]))
        case 8: return .leaf(formatted("SELF.\(textual) == %@", [text(dataset.values[textual] ?? [])]))
        case 0: return .leaf(formatted("lowercase:(%K) == %@", [textual, text(dataset.values[textual] ?? []).lowercased()]))
        case 1: return .leaf(formatted("uppercase:(%K) BEGINSWITH %@", [textual, text(dataset.values[textual] ?? [])]))
        case 2: return .leaf(formatted("length:(%K) > %@", [textual, number]))
        case 3: return .leaf(formatted("%K + 1 > %@", [numeric, number]))
        case 4: return .leaf(formatted("%K * 2 <= %@", [numeric, Double(number) / 2]))
        case 5: return .leaf(formatted("abs:(%K) < %@", [numeric, number]))
        default: return .leaf(formatted("%K - %K >= 0", [numeric, random.pick(["CD_count", "CD_score"])]))
        }
    }

    /// The comparison as a client's `NSPredicate(format:argumentArray:)` prints it.
    private func formatted(_ format: String, _ arguments: [Any]) -> String {
        NSPredicate(format: format, argumentArray: arguments).predicateFormat
    }

    // MARK: Sort and limit

    /// 0 to 2 keys, on fields of any kind, `recordName`, or a field no record has.
    mutating func sortKeys() -> [SortKey] {
        let fields = QueryDataset.fields.map(\.name).filter { $0 != "CD_blob" } + ["recordName", "recordName", "CD_missing"]
        return (0..<random.pick([0, 0, 0, 1, 1, 1, 1, 2, 2, 2])).map { _ in
            SortKey(field: random.pick(fields), ascending: random.chance(0.5))
        }
    }

    /// A limit in 1...60, small half the time so that answers take several pages; at least
    /// `1/pages` of the expected matches, so that a case takes at most that many pages (the
    /// server before issue 35 evaluates the whole query for each page).
    mutating func limit(matching count: Int, pages: Int) -> Int {
        max(random.chance(0.5) ? random.int(1...60) : random.int(1...10), min(60, (count + pages - 1) / pages))
    }
}
