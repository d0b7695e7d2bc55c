import Foundation
import Strata

/// A deterministic random number generator (SplitMix64), so that `prepare` and `verify` of the
/// same seed see the same data.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// The objects of the lists-tags-items model as plain values: what the store must hold.
struct Graph: Equatable {
    struct Item: Equatable {
        var title: String
        var rank: Int64
        var note: String
        var list: Int64?
        var tags: Set<Int64>
    }

    var lists: [Int64: String] = [:]
    var tags: [Int64: String] = [:]
    var items: [Int64: Item] = [:]

    /// The canonical dump: one line per object, sorted.
    var lines: [String] {
        var lines: [String] = []
        for (key, name) in lists { lines.append("L \(key) \(name)") }
        for (key, name) in tags { lines.append("T \(key) \(name)") }
        for (key, item) in items { lines.append(Self.line(key, item)) }
        return lines.sorted()
    }

    static func line(_ key: Int64, _ item: Item) -> String {
        let tags = item.tags.sorted().map(String.init).joined(separator: ",")
        return "I \(key) \(item.title) \(item.rank) \(item.note) list=\(item.list.map(String.init) ?? "-") tags=\(tags)"
    }

    mutating func add(_ other: Graph) {
        lists.merge(other.lists) { $1 }
        tags.merge(other.tags) { $1 }
        items.merge(other.items) { $1 }
    }

    var nextListKey: Int64 { (lists.keys.max() ?? 0) + 1 }
    var nextTagKey: Int64 { (tags.keys.max() ?? 0) + 1 }
    var nextItemKey: Int64 { (items.keys.max() ?? 0) + 1 }

    /// New lists, tags and items after those of `base`, each item in a list (a new one or one
    /// of `base`'s) with up to three tags; `related` false makes items without relationships.
    static func additions(
        to base: Graph, lists: Int, tags: Int, items: Int, related: Bool = true, using random: inout SeededGenerator
    ) -> Graph {
        var added = Graph()
        let firstList = base.nextListKey
        let firstTag = base.nextTagKey
        let firstItem = base.nextItemKey
        for index in 0..<Int64(lists) { added.lists[firstList + index] = "list\(firstList + index)" }
        for index in 0..<Int64(tags) { added.tags[firstTag + index] = "tag\(firstTag + index)" }
        // Sorted: a dictionary's order differs from one process to the next.
        let allLists = base.lists.keys.sorted() + added.lists.keys.sorted()
        let allTags = base.tags.keys.sorted() + added.tags.keys.sorted()
        for index in 0..<Int64(items) {
            let key = firstItem + index
            var item = Item(
                title: "item\(key)", rank: Int64(random.next() % 100), note: "n\(random.next() % 1000)", list: nil, tags: [])
            if related && !allLists.isEmpty {
                item.list = allLists[Int(random.next() % UInt64(allLists.count))]
                if !allTags.isEmpty {
                    for _ in 0..<Int(random.next() % 4) { item.tags.insert(allTags[Int(random.next() % UInt64(allTags.count))]) }
                }
            }
            added.items[key] = item
        }
        return added
    }
}

/// The lists-tags-items model every operation but the migrations uses.
enum Models {
    static let graph = NSManagedObjectModel {
        Entity("KList") {
            Attribute("key", .integer64AttributeType, optional: false, defaultValue: Int64(0))
            Attribute("name", .stringAttributeType)
            Relationship("items", to: "KItem", inverse: "list", toMany: true)
        }
        Entity("KTag") {
            Attribute("key", .integer64AttributeType, optional: false, defaultValue: Int64(0))
            Attribute("name", .stringAttributeType)
            Relationship("items", to: "KItem", inverse: "tags", toMany: true)
        }
        Entity("KItem") {
            Attribute("key", .integer64AttributeType, optional: false, defaultValue: Int64(0))
            Attribute("title", .stringAttributeType)
            Attribute("rank", .integer64AttributeType, optional: false, defaultValue: Int64(0))
            Attribute("note", .stringAttributeType)
            Relationship("list", to: "KList", inverse: "items")
            Relationship("tags", to: "KTag", inverse: "items", toMany: true)
        }
    }

    /// The migrations' first version.
    static let v1 = NSManagedObjectModel {
        Entity("MItem") {
            Attribute("key", .integer64AttributeType, optional: false, defaultValue: Int64(0))
            Attribute("title", .stringAttributeType)
            Attribute("count", .integer16AttributeType, optional: false, defaultValue: Int16(0))
            Attribute("note", .stringAttributeType)
        }
    }

    /// Lightweight from v1: the count widens (its table is made anew), a required attribute
    /// with a default and an entity are added.
    static let v2 = NSManagedObjectModel {
        Entity("MItem") {
            Attribute("key", .integer64AttributeType, optional: false, defaultValue: Int64(0))
            Attribute("title", .stringAttributeType)
            Attribute("count", .integer64AttributeType, optional: false, defaultValue: Int64(0))
            Attribute("note", .stringAttributeType)
            Attribute("rating", .integer32AttributeType, optional: false, defaultValue: Int32(3))
        }
        Entity("MTag") {
            Attribute("label", .stringAttributeType)
        }
    }

    /// Explicit from v1, with a mapping model: the title becomes an upper-case heading.
    static let v3 = NSManagedObjectModel {
        Entity("MItem") {
            Attribute("key", .integer64AttributeType, optional: false, defaultValue: Int64(0))
            Attribute("heading", .stringAttributeType)
            Attribute("count", .integer64AttributeType, optional: false, defaultValue: Int64(0))
            Attribute("note", .stringAttributeType)
        }
    }

    /// v1 to v3, object by object.
    static func mapping() -> NSMappingModel {
        func property(_ name: String, _ format: String) -> NSPropertyMapping {
            let mapping = NSPropertyMapping()
            mapping.name = name
            mapping.valueExpression = NSExpression(format: format)
            return mapping
        }
        let items = NSEntityMapping()
        items.name = "MItemToMItem"
        items.mappingType = .transformEntityMappingType
        items.sourceEntityName = "MItem"
        items.destinationEntityName = "MItem"
        items.attributeMappings = [
            property("key", "$source.key"),
            property("heading", #"FUNCTION($source.title, "uppercaseString")"#),
            property("count", "$source.count"),
            property("note", "$source.note"),
        ]
        let model = NSMappingModel()
        model.entityMappings = [items]
        return model
    }
}
