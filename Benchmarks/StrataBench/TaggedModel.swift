import Foundation
import Strata

/// B11's to-do: tagged (many-to-many with `Tag`) and placed (to-one, with a to-many inverse).
final class Todo: NSManagedObject {
    @Managed var title: String?
    @Managed var rank: Int64
    @Managed var tags: NSSet?
    @Managed var place: Place?
}

/// One of B11's 20 tags, each on about 15% of the to-dos.
final class Tag: NSManagedObject {
    @Managed var name: String?
    @Managed var todos: NSSet?
}

/// One of B11's 1,000 places, each holding about a thousandth of the to-dos.
final class Place: NSManagedObject {
    @Managed var name: String?
    @Managed var todos: NSSet?
}

enum TaggedModel {
    static let tags = 20
    static let places = 1_000

    /// The model of the example app's import, reduced to what B11 links.
    static let shared = NSManagedObjectModel {
        Entity("Todo", className: "Todo") {
            Attribute("title", .stringAttributeType)
            Attribute("rank", .integer64AttributeType, optional: false, defaultValue: Int64(0))
            Relationship("tags", to: "Tag", inverse: "todos", toMany: true)
            Relationship("place", to: "Place", inverse: "todos")
        }
        Entity("Tag", className: "Tag") {
            Attribute("name", .stringAttributeType)
            Relationship("todos", to: "Todo", inverse: "tags", toMany: true)
        }
        Entity("Place", className: "Place") {
            Attribute("name", .stringAttributeType)
            Relationship("todos", to: "Todo", inverse: "place", toMany: true)
        }
    }

    /// The three tags of to-do `n` (1-based), as numbers 1…20: distinct, since 7, 13 and
    /// their difference 6 are not multiples of 20.
    static func tagNumbers(of n: Int) -> [Int] { [n % tags + 1, (n + 7) % tags + 1, (n + 13) % tags + 1] }

    /// The place of to-do `n`, as a number 1…1,000.
    static func placeNumber(of n: Int) -> Int { n * 7_919 % places + 1 }

    static func title(of n: Int) -> String { "Todo \(n)" }

    /// What every stack adds up for to-do `n`, so that the three can be compared.
    static func checksum(of n: Int) -> Int {
        n + tagNumbers(of: n).reduce(0, +) * 3 + placeNumber(of: n) * 5 + title(of: n).utf8.count
    }
}

/// Where Core Data's layout puts B11's rows in a store Strata made (STORE-FORMAT §5): the
/// entity numbers, and the join table of `Todo.tags` ↔ `Tag.todos`, named after the entity
/// with the lower number (`Z_<n><RELATIONSHIP>`), with a column per side named after the
/// relationship that points to it.
struct TaggedLayout {
    var todoEntity: Int64 = 0
    var tagEntity: Int64 = 0
    var placeEntity: Int64 = 0

    var joinTable: String { tagEntity < todoEntity ? "Z_\(tagEntity)TODOS" : "Z_\(todoEntity)TAGS" }
    /// The column that holds a tag's `Z_PK`.
    var tagColumn: String { "Z_\(tagEntity)TAGS" }
    /// The column that holds a to-do's `Z_PK`.
    var todoColumn: String { "Z_\(todoEntity)TODOS" }

    init() {}

    /// The layout of the store at `path`; fails if its join table is not where the rule says.
    init(store path: String) throws {
        let database = try RawDatabase(path: path)
        let numbers = try database.prepare("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY")
        while try numbers.step() {
            switch numbers.string(1) {
            case "Todo": todoEntity = numbers.int64(0)
            case "Tag": tagEntity = numbers.int64(0)
            case "Place": placeEntity = numbers.int64(0)
            default: break
            }
        }
        let columns = try database.prepare("SELECT name FROM pragma_table_info('\(joinTable)') ORDER BY name")
        var names: Set<String> = []
        while try columns.step() { names.insert(columns.string(0) ?? "") }
        guard names == [tagColumn, todoColumn] else {
            throw BenchError("no join table \(joinTable)(\(tagColumn), \(todoColumn)) in \(path); columns \(names)")
        }
    }

    /// The rows B11 left, as a number every stack must agree on: to-dos with a place, join
    /// rows, and the sum of the join rows' keys.
    func written(in path: String) throws -> Int {
        let database = try RawDatabase(path: path)
        let placed = try database.integer("SELECT count(*) FROM ZTODO WHERE ZPLACE IS NOT NULL")
        let joins = try database.integer("SELECT count(*) + sum(\(tagColumn)) * 7 + sum(\(todoColumn)) FROM \(joinTable)")
        return Int(placed &* 31 &+ joins)
    }
}
