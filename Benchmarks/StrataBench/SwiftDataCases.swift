import Foundation
import Strata
import SwiftData

/// The model of S1: `Item`'s ten attributes as a SwiftData app declares them, with the same
/// indexes. Nested, so that its entity is named `Item` (an entity's name is the class's bare
/// name) beside the `NSManagedObject` subclass of the other cases.
enum SwiftDataBench {
    @Model final class Item {
        #Index<Item>([\.category, \.price], [\.serial])

        var category: Int16
        var quantity: Int32
        var serial: Int64
        var stock: Int64
        var price: Double
        var weight: Double
        var latitude: Double
        var longitude: Double
        var name: String?
        var created: Date?

        init(_ values: ItemValues) {
            category = values.category
            quantity = values.quantity
            serial = values.serial
            stock = values.stock
            price = values.price
            weight = values.weight
            latitude = values.latitude
            longitude = values.longitude
            name = values.name
            created = Date(timeIntervalSinceReferenceDate: values.created)
        }
    }
}

/// S1 (SPEC: the SwiftData layer's B1, B3 and B8 through `ModelContext` at most 1.2× the same
/// rows through the Core Data API, in the same run): the work of `StrataCases.insert`, `fetch`
/// and `modify`, with the same checksums, through a `ModelContainer` and a `ModelContext`.
///
/// A SwiftData store records persistent history (Apple's does, for `fetchHistory`), so the
/// writing rows do the work of the Core Data rows that record it too: S1-B1 is compared with
/// B1h and S1-B8 with B8h (each of which is B1 or B8 with history on), their ratios to B1 and
/// B8 shown beside. Reading records nothing: S1-B3 is compared with B3.
///
/// SwiftData stores need the schema of SwiftData's model (its entity has no `owner`), so the
/// cases have stores of their own, made once per run the first time a case needs them and
/// outside the clock: an empty one (S1-B1) and one of `fetched` items written as `Fixtures`
/// writes `items` (S1-B3, S1-B8), the same rows.
enum SwiftDataCases {
    static func timed(_ sizes: Sizes) -> [TimedCase] {
        let n = Report.count
        // Raw SQLite runs too, so that the run checks each row's checksum against raw's (and so
        // against B1's, B3's and B8's); the goal compares Strata's time with the Core Data row's.
        return [
            TimedCase(
                id: "S1-B1", work: "B1 through ModelContext: insert \(n(sizes.inserts)), one save",
                goal: .ratioToCase("B1h", 1.2, also: ["B1"]), runs: [.raw: RawCases.insert, .strata: insert]),
            TimedCase(
                id: "S1-B3", work: "B3 through ModelContext: fetch \(n(sizes.fetched)), read all",
                goal: .ratioToCase("B3", 1.2), runs: [.raw: RawCases.fetch, .strata: fetch]),
            TimedCase(
                id: "S1-B8", work: "B8 through ModelContext: modify \(n(sizes.fetched)), one save",
                goal: .ratioToCase("B8h", 1.2, also: ["B8"]), runs: [.raw: RawCases.modify, .strata: modify]),
        ]
    }

    /// A container and a context of SwiftData's model on the store at `path`; made before the
    /// clock starts.
    struct Stack {
        let container: ModelContainer
        let context: ModelContext

        init(_ path: String) throws {
            container = try ModelContainer(
                for: SwiftDataBench.Item.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
            context = ModelContext(container)
        }
    }

    /// B1: `inserts` models made from their values and inserted, one save.
    static func insert(_ fixtures: Fixtures) throws -> Sample {
        let path = try fixtures.scratchCopy(of: try emptyStore(fixtures))
        defer { Fixtures.remove(path) }
        let stack = try Stack(path)
        let count = fixtures.sizes.inserts
        return try measure {
            var checksum = Checksum()
            for n in 1...count {
                let values = ItemValues(n)
                stack.context.insert(SwiftDataBench.Item(values))
                checksum.add(values.serial)
            }
            try stack.context.save()
            return checksum.value
        }
    }

    /// B3: every item fetched, each attribute read.
    static func fetch(_ fixtures: Fixtures) throws -> Sample {
        let stack = try Stack(try itemsStore(fixtures))
        return try measure {
            var checksum = Checksum()
            for item in try stack.context.fetch(FetchDescriptor<SwiftDataBench.Item>()) { checksum.add(item) }
            return checksum.value
        }
    }

    /// B8: every item fetched, its price and name changed, one save.
    static func modify(_ fixtures: Fixtures) throws -> Sample {
        let path = try fixtures.scratchCopy(of: try itemsStore(fixtures))
        defer { Fixtures.remove(path) }
        let stack = try Stack(path)
        return try measure {
            var checksum = Checksum()
            for item in try stack.context.fetch(FetchDescriptor<SwiftDataBench.Item>()) {
                item.price = ItemValues.modifiedPrice(item.price)
                item.name = ItemValues.modifiedName(item.name ?? "")
                checksum.add(item.price)
                checksum.add(item.name)
            }
            try stack.context.save()
            return checksum.value
        }
    }

    // MARK: Stores

    /// An empty store of SwiftData's model, made by a container (its schema, as SwiftData
    /// creates it) the first time it is asked for.
    static func emptyStore(_ fixtures: Fixtures) throws -> String {
        let path = fixtures.path("swiftdata-empty")
        if !FileManager.default.fileExists(atPath: path) {
            _ = try Stack(path)
        }
        return path
    }

    /// A copy of the empty store with `fetched` items, written with SQLite's C API as
    /// `Fixtures` writes `items`: the same rows, under the entity number of this store.
    static func itemsStore(_ fixtures: Fixtures) throws -> String {
        let path = fixtures.path("swiftdata-items")
        if FileManager.default.fileExists(atPath: path) { return path }
        let filling = fixtures.path("swiftdata-items-filling")
        try fixtures.copy(try emptyStore(fixtures), to: filling)
        do {
            let database = try RawDatabase(path: filling)
            var entity: Int64?
            let numbers = try database.prepare("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item'")
            while try numbers.step() { entity = numbers.int64(0) }
            guard let entity else { throw BenchError("the SwiftData store has no Item entity") }
            try database.execute("BEGIN")
            let insert = try database.prepare(
                "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, \(Layout.itemColumns.joined(separator: ", "))) "
                    + "VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            let count = fixtures.sizes.fetched
            for n in stride(from: 1, through: count, by: 1) {
                RawCases.bind(ItemValues(n), key: Int64(n), entity: entity, to: insert)
                try insert.step()
                insert.reset()
            }
            try database.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(count) WHERE Z_ENT = \(entity)")
            try database.execute("COMMIT")
        }
        try fixtures.copy(filling, to: path)
        Fixtures.remove(filling)
        return path
    }
}

extension Checksum {
    /// What `add(_: Item)` adds, read through the model's properties.
    mutating func add(_ item: SwiftDataBench.Item) {
        add(
            item.category, item.quantity, item.serial, item.stock, item.price, item.weight, item.latitude,
            item.longitude, item.name, item.created?.timeIntervalSinceReferenceDate ?? 0)
    }
}
