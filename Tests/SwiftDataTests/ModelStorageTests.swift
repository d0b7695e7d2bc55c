import Foundation
import Testing

@testable import SwiftData

// A model of a final class made by the app keeps the values its initialiser sets in the model
// itself, and once inserted only its row (as a fetched one does): no backing data, unless
// something asks for one. These tests look at where the model keeps its state, and check that
// every value reaches the store whichever way it went.

@Model
final class Shelf {
    var label: String
    var capacity: Int
    var note: String?
    @Relationship(deleteRule: .cascade, inverse: \Volume.shelf) var volumes: [Volume] = []

    init(label: String, capacity: Int) {
        self.label = label
        self.capacity = capacity
    }
}

@Model
final class Volume {
    var title: String
    var shelf: Shelf?

    init(title: String) {
        self.title = title
    }
}

/// A class that may have subclasses, and one.
@Model
class Parcel {
    var label: String
    var weight: Int

    init(label: String, weight: Int) {
        self.label = label
        self.weight = weight
    }
}

@Model
class Crate: Parcel {
    var slots: Int

    init(label: String, weight: Int, slots: Int) {
        self.slots = slots
        super.init(label: label, weight: weight)
    }
}

/// Where a model keeps its state: backing data made, row object kept, keys of the values set
/// before insertion (nil: the storage holds no list of them).
private struct StorageState: Equatable {
    var hasBacking: Bool
    var hasRow: Bool
    var keptKeys: [String]?
}

/// (Of the class `Model` of the model's hierarchy: each class has its storage.)
private func state<Model: PersistentModel>(of model: Model) throws -> StorageState {
    var mirror: Mirror? = Mirror(reflecting: model)
    var found: _ModelStorage<Model>?
    while let current = mirror, found == nil {
        found = current.children.lazy.compactMap { $0.value as? _ModelStorage<Model> }.first
        mirror = current.superclassMirror
    }
    let storage = try #require(found)
    return StorageState(hasBacking: storage.backing != nil, hasRow: storage.object != nil, keptKeys: storage.pending?.keys)
}

@Suite("Where a model keeps its values")
struct ModelStorageTests {
    private func container() throws -> ModelContainer {
        try ModelContainer(for: Shelf.self, Volume.self, configurations: ModelConfiguration(url: try temporaryStoreURL()))
    }

    private func saved(_ container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<Shelf>(sortBy: [SortDescriptor(\.label)])).map { shelf in
            let titles = shelf.volumes.map(\.title).sorted().joined(separator: ",")
            return "\(shelf.label) \(shelf.capacity) \(shelf.note ?? "nil") [\(titles)]"
        }
    }

    @Test("made and inserted, a model keeps its values in itself, then only its row; every value is saved")
    func insertedModelKeepsItsRow() throws {
        let shelf = Shelf(label: "A", capacity: 3)
        shelf.note = "draft"
        shelf.note = nil
        shelf.volumes = [Volume(title: "Emma")]
        let made = StorageState(hasBacking: false, hasRow: false, keptKeys: ["volumes", "label", "capacity"])
        #expect(try state(of: shelf) == made)
        // Asked for its context and changes before insertion, it still makes no backing data.
        #expect(shelf.modelContext == nil && !shelf.hasChanges)
        #expect(try state(of: shelf) == made)

        let container = try container()
        let context = ModelContext(container)
        context.insert(shelf)
        #expect(try state(of: shelf) == StorageState(hasBacking: false, hasRow: true, keptKeys: nil))
        #expect(shelf.modelContext === context && shelf.hasChanges && !shelf.isDeleted)
        #expect(shelf.label == "A" && shelf.capacity == 3 && shelf.note == nil)
        shelf.capacity = 4
        #expect(shelf.capacity == 4 && context.hasChanges)
        #expect(try state(of: shelf).hasBacking == false, "attributes are read and written through the row")
        // The related model set before insertion was inserted with it, its inverse set.
        let emma = try #require(shelf.volumes.first)
        #expect(emma.modelContext === context && emma.shelf === shelf && emma.title == "Emma")
        #expect(context.insertedModelsArray.count == 2)
        try context.save()
        #expect(try saved(container) == ["A 4 nil [Emma]"])
        #expect(!shelf.hasChanges && shelf.persistentModelID.storeIdentifier != nil)
        #expect(context.registeredModel(for: shelf.persistentModelID) as Shelf? === shelf)
        // A fetched model keeps its row and no list of values.
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Shelf>()).first)
        #expect(try state(of: fetched) == StorageState(hasBacking: false, hasRow: true, keptKeys: nil))
        #expect(fetched.label == "A" && fetched.capacity == 4)
        #expect(try state(of: fetched) == StorageState(hasBacking: false, hasRow: true, keptKeys: nil))
    }

    @Test("a value read before insertion moves the values into backing data; insertion writes them all")
    func readBeforeInsertion() throws {
        let shelf = Shelf(label: "B", capacity: 2)
        #expect(try state(of: shelf).hasBacking == false)
        #expect(shelf.label == "B" && shelf.volumes.isEmpty)
        #expect(try state(of: shelf) == StorageState(hasBacking: true, hasRow: false, keptKeys: nil))
        shelf.note = "kept"
        let container = try container()
        let context = ModelContext(container)
        context.insert(shelf)
        #expect(shelf.modelContext === context && shelf.note == "kept")
        try context.save()
        #expect(try saved(container) == ["B 2 kept []"])
    }

    @Test("rolled back, an inserted model keeps its values and is saved with them when inserted again")
    func rollbackOfInsertedModel() throws {
        let container = try container()
        let context = ModelContext(container)
        let shelf = Shelf(label: "C", capacity: 1)
        context.insert(shelf)
        shelf.note = "after insertion"
        context.rollback()
        #expect(shelf.modelContext == nil && !context.hasChanges)
        #expect(shelf.label == "C" && shelf.capacity == 1 && shelf.note == "after insertion")
        shelf.capacity = 5
        context.insert(shelf)
        #expect(shelf.modelContext === context)
        try context.save()
        #expect(try saved(container) == ["C 5 after insertion []"])
    }

    @Test("deleted after insertion and saved, a model leaves its context and keeps its values")
    func deletedInsertedModel() throws {
        let container = try container()
        let context = ModelContext(container)
        let kept = Shelf(label: "D", capacity: 1)
        let gone = Shelf(label: "E", capacity: 2)
        context.insert(kept)
        context.insert(gone)
        try context.save()
        context.delete(gone)
        #expect(gone.isDeleted)
        try context.save()
        #expect(gone.modelContext == nil && gone.label == "E")
        #expect(kept.modelContext === context)
        #expect(try saved(container) == ["D 1 nil []"])
    }

    @Test("a model of a class that may have subclasses keeps its row too; a subclass's model its backing data")
    func classHierarchy() throws {
        let container = try ModelContainer(
            for: Parcel.self, Crate.self, configurations: ModelConfiguration(url: try temporaryStoreURL()))
        let context = ModelContext(container)
        let parcel = Parcel(label: "small", weight: 2)
        let crate = Crate(label: "large", weight: 30, slots: 6)
        #expect(try state(of: parcel) == StorageState(hasBacking: false, hasRow: false, keptKeys: ["label", "weight"]))
        context.insert(parcel)
        context.insert(crate)
        #expect(try state(of: parcel) == StorageState(hasBacking: false, hasRow: true, keptKeys: nil))
        #expect(try state(of: crate).hasBacking && state(of: crate as Parcel).hasBacking, "each class's backing data")
        #expect(parcel.modelContext === context && crate.modelContext === context)
        #expect(parcel.label == "small" && crate.label == "large" && crate.weight == 30 && crate.slots == 6)
        parcel.weight = 3
        try context.save()
        let fetched = try ModelContext(container).fetch(FetchDescriptor<Parcel>(sortBy: [SortDescriptor(\.label)]))
        #expect(fetched.map { "\($0.label) \($0.weight) \(($0 as? Crate)?.slots ?? 0)" } == ["large 30 6", "small 3 0"])
    }
}

extension ModelStorageTests {
    /// The list of values a model's initialiser fills is freed when the model is inserted: at
    /// 16 entries it must stay within the blocks the C library's per-thread cache keeps
    /// (1,032 bytes of a block's room), or each model's list is allocated and freed the slow way.
    @Test("the list of values set before insertion fits the C library's cache of freed blocks")
    func pendingListSize() {
        let arrayHeader = 32
        #expect(MemoryLayout<_PendingValues.Entry>.stride == 56)
        #expect(arrayHeader + 16 * MemoryLayout<_PendingValues.Entry>.stride <= 1_032)
    }
}
