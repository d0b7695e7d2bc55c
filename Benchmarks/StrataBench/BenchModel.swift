import Foundation
import Strata

/// The entity of SPEC §5: ten attributes (four integers, four doubles, a string, a date),
/// plus a to-one `owner` for the relationship cases (B7, B10); `NULL` elsewhere.
final class Item: NSManagedObject {
    @Managed var category: Int16
    @Managed var quantity: Int32
    @Managed var serial: Int64
    @Managed var stock: Int64
    @Managed var price: Double
    @Managed var weight: Double
    @Managed var latitude: Double
    @Managed var longitude: Double
    @Managed var name: String?
    @Managed var created: Date?
    @Managed var owner: Owner?
}

/// The parent of B7 and B10: ten items each, deleted with it (Cascade).
final class Owner: NSManagedObject {
    @Managed var name: String?
    @Managed var items: NSSet?
    /// The same relationship through a typed accessor (what `@Managed var items: Set<Item>`
    /// expands to), for B7t.
    var itemSet: Set<Item> { _managedValue(forKey: "items") }
}

enum BenchModel {
    /// One model for the whole run: a coordinator per trial, as apps open a store per launch.
    static let shared = NSManagedObjectModel {
        Entity("Item", className: "Item") {
            Attribute("category", .integer16AttributeType, optional: false, defaultValue: Int16(0))
            Attribute("quantity", .integer32AttributeType, optional: false, defaultValue: Int32(0))
            Attribute("serial", .integer64AttributeType, optional: false, defaultValue: Int64(0))
            Attribute("stock", .integer64AttributeType, optional: false, defaultValue: Int64(0))
            Attribute("price", .doubleAttributeType, optional: false, defaultValue: 0.0)
            Attribute("weight", .doubleAttributeType, optional: false, defaultValue: 0.0)
            Attribute("latitude", .doubleAttributeType, optional: false, defaultValue: 0.0)
            Attribute("longitude", .doubleAttributeType, optional: false, defaultValue: 0.0)
            Attribute("name", .stringAttributeType)
            Attribute("created", .dateAttributeType)
            Relationship("owner", to: "Owner", inverse: "items")
            FetchIndex("byCategoryPrice", "category", "price")
            FetchIndex("bySerial", "serial")
        }
        Entity("Owner", className: "Owner") {
            Attribute("name", .stringAttributeType)
            Relationship("items", to: "Item", inverse: "owner", toMany: true, deleteRule: .cascadeDeleteRule)
        }
    }
}

/// The values of row `n` (1-based), the same for every stack, so that the three compute the
/// same checksum over the same data.
struct ItemValues {
    var category: Int16
    var quantity: Int32
    var serial: Int64
    var stock: Int64
    var price: Double
    var weight: Double
    var latitude: Double
    var longitude: Double
    var name: String
    var created: Double

    init(_ n: Int) {
        category = Int16(n % 100)
        quantity = Int32(n % 10_000)
        serial = Int64(n)
        stock = Int64(n * 7 % 1000)
        price = Double(n * 7919 % 100_000) / 100
        weight = Double(n) * 0.5
        latitude = Double(n % 180) - 89.875
        longitude = Double(n % 360) - 179.5
        name = "Item \(n)"
        created = 700_000_000 + Double(n)
    }

    /// The value B8 writes: a new price and name.
    static func modifiedPrice(_ price: Double) -> Double { price + 1 }
    static func modifiedName(_ name: String) -> String { name + "*" }
}

/// A checksum over every attribute read, so that no stack can skip work and so that the
/// stacks can be checked against each other.
struct Checksum {
    private(set) var value: Int = 0

    mutating func add(_ number: Int64) { value &+= Int(truncatingIfNeeded: number) }
    mutating func add(_ number: Double) { value &+= Int(number * 8) }
    mutating func add(_ text: String?) { value &+= text?.utf8.count ?? 0 }

    mutating func add(
        _ category: Int16, _ quantity: Int32, _ serial: Int64, _ stock: Int64, _ price: Double, _ weight: Double,
        _ latitude: Double, _ longitude: Double, _ name: String?, _ created: Double
    ) {
        add(Int64(category))
        add(Int64(quantity))
        add(serial)
        add(stock)
        add(price)
        add(weight)
        add(latitude)
        add(longitude)
        add(name)
        add(created)
    }

    mutating func add(_ item: Item) {
        add(
            item.category, item.quantity, item.serial, item.stock, item.price, item.weight, item.latitude,
            item.longitude, item.name, item.created?.timeIntervalSinceReferenceDate ?? 0)
    }
}

/// Core Data's layout of the model (what Strata creates), which the raw and GRDB stacks use
/// too, so that all three read and write the same tables and indexes.
enum Layout {
    static let itemColumns = [
        "ZCATEGORY", "ZQUANTITY", "ZSERIAL", "ZSTOCK", "ZPRICE", "ZWEIGHT", "ZLATITUDE", "ZLONGITUDE", "ZNAME",
        "ZCREATED",
    ]
    /// `Z_PK, Z_ENT, Z_OPT` then the ten attributes, positions 3…12.
    static let itemSelect = "Z_PK, Z_ENT, Z_OPT, " + itemColumns.joined(separator: ", ")
    static let itemInsert =
        "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, \(itemColumns.joined(separator: ", ")), ZOWNER) "
        + "VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
}
