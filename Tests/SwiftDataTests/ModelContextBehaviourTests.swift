import Foundation
import SwiftData
import Synchronization
import Testing

@Suite("ModelContext behaviour")
struct ModelContextBehaviourTests {
    private func container() throws -> ModelContainer {
        try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: try temporaryStoreURL()))
    }

    private func seed(_ context: ModelContext, _ names: [String]) throws {
        for (offset, name) in names.enumerated() {
            context.insert(
                Trip(
                    name: name, destination: offset.isMultiple(of: 2) ? "even" : "odd",
                    startDate: Date(timeIntervalSinceReferenceDate: Double(offset) * 86_400)))
        }
        try context.save()
    }

    @Test("the main context saves by itself at the end of the main actor's turn; other contexts do not")
    @MainActor
    func autosave() async throws {
        let container = try container()
        let main = container.mainContext
        #expect(main.autosaveEnabled)
        #expect(!ModelContext(container).autosaveEnabled)
        main.insert(Trip(name: "Autosaved", destination: "x"))
        let reader = ModelContext(container)
        #expect(try reader.fetchCount(FetchDescriptor<Trip>()) == 0, "not saved within the turn")
        for _ in 0..<50 where main.hasChanges {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(!main.hasChanges)
        #expect(try reader.fetchCount(FetchDescriptor<Trip>()) == 1)

        let manual = ModelContext(container)
        manual.insert(Trip(name: "Kept in memory", destination: "x"))
        try await Task.sleep(for: .milliseconds(50))
        #expect(manual.hasChanges, "autosave is off for contexts made by the app")
    }

    @Test("a model actor's context with autosave on saves after the actor's job, on the actor's queue")
    func autosaveOnAModelActor() async throws {
        let container = try container()
        let actor = AutosavingImporter(modelContainer: container)
        let unsavedDuringTheJob = try await actor.insert(["One", "Two"])
        #expect(unsavedDuringTheJob == 0, "not saved while the job runs")
        let reader = ModelContext(container)
        for _ in 0..<100 where try reader.fetchCount(FetchDescriptor<Trip>()) < 2 {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try reader.fetchCount(FetchDescriptor<Trip>()) == 2)
        #expect(try await actor.hasChanges() == false)
    }

    @Test("a context used on a thread of its own with autosave on saves at its next operation, never beside its owner")
    func autosaveAtTheNextOperation() async throws {
        let container = try container()
        let results = try await Task.detached {
            let context = ModelContext(container)
            context.autosaveEnabled = true
            let reader = ModelContext(container)
            let trip = Trip(name: "Deferred", destination: "x")
            context.insert(trip)
            trip.destination = "y"
            usleep(50_000)
            // Nothing ran beside the owner: the change is still the context's own.
            let before = (try reader.fetchCount(FetchDescriptor<Trip>()), context.hasChanges)
            // Its next operation saves first.
            let fetched = try context.fetch(FetchDescriptor<Trip>()).map(\.destination)
            let after = (try reader.fetchCount(FetchDescriptor<Trip>()), context.hasChanges)
            return (before.0, before.1, fetched, after.0, after.1)
        }.value
        #expect(results.0 == 0)
        #expect(results.1)
        #expect(results.2 == ["y"])
        #expect(results.3 == 1)
        #expect(!results.4)
    }

    @Test("a context made by the app and used on the main actor autosaves at the end of the turn when asked to")
    @MainActor
    func autosaveOnTheMainActor() async throws {
        let container = try container()
        let context = ModelContext(container)
        context.autosaveEnabled = true
        context.insert(Trip(name: "Main", destination: "x"))
        let reader = ModelContext(container)
        #expect(try reader.fetchCount(FetchDescriptor<Trip>()) == 0, "not saved within the turn")
        for _ in 0..<100 where context.hasChanges {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(!context.hasChanges)
        #expect(try reader.fetchCount(FetchDescriptor<Trip>()) == 1)
    }

    @Test("willSave and didSave carry the context and the saved identifiers")
    func notifications() throws {
        let container = try container()
        let context = ModelContext(container)
        let seen = Mutex<[String]>([])
        let identifiers = Mutex<[String: [PersistentIdentifier]]>([:])
        let will = NotificationCenter.default.addObserver(forName: ModelContext.willSave, object: context, queue: nil) { _ in
            seen.withLock { $0.append("will") }
        }
        let did = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) {
            note in
            seen.withLock { $0.append("did") }
            var found: [String: [PersistentIdentifier]] = [:]
            for key in [ModelContext.NotificationKey.insertedIdentifiers, .updatedIdentifiers, .deletedIdentifiers] {
                found[key.rawValue] = note.userInfo?[key.rawValue] as? [PersistentIdentifier]
            }
            identifiers.withLock { $0 = found }
        }
        defer {
            NotificationCenter.default.removeObserver(will)
            NotificationCenter.default.removeObserver(did)
        }
        func saved(_ key: ModelContext.NotificationKey) -> Set<PersistentIdentifier>? {
            identifiers.withLock { $0[key.rawValue] }.map(Set.init)
        }
        let trip = Trip(name: "Noted", destination: "x")
        context.insert(trip)
        try context.save()
        #expect(seen.withLock { $0 } == ["will", "did"])
        #expect(saved(.insertedIdentifiers) == [trip.persistentModelID])
        #expect(saved(.updatedIdentifiers) == [] && saved(.deletedIdentifiers) == [])
        try context.save()
        #expect(seen.withLock { $0 } == ["will", "did"], "a save without changes posts nothing")

        let other = Trip(name: "Other", destination: "y")
        let third = Trip(name: "Third", destination: "z")
        context.insert(other)
        context.insert(third)
        try context.save()
        #expect(saved(.insertedIdentifiers) == [other.persistentModelID, third.persistentModelID])
        trip.destination = "changed"
        context.delete(other)
        try context.save()
        #expect(saved(.insertedIdentifiers) == [] && saved(.updatedIdentifiers) == [trip.persistentModelID])
        #expect(saved(.deletedIdentifiers) == [other.persistentModelID])
        #expect(seen.withLock { $0.count } == 6)
    }

    @Test("fetch limits, offsets, counts, identifiers, pending changes, enumerate in batches")
    func fetching() throws {
        let container = try container()
        let context = ModelContext(container)
        let names = (0..<23).map { String(format: "trip %02d", $0) }
        try seed(context, names)
        var page = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name, order: .reverse)])
        page.fetchLimit = 5
        page.fetchOffset = 2
        #expect(try context.fetch(page).map(\.name) == Array(names.reversed()[2..<7]))
        #expect(try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "even" })) == 12)
        let ids = try context.fetchIdentifiers(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(ids.count == 23)
        #expect((context.model(for: ids[3]) as? Trip)?.name == "trip 03")
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: JSONEncoder().encode(ids[3]))
        #expect(decoded == ids[3] && decoded.hashValue == ids[3].hashValue && decoded != ids[4])
        #expect((ModelContext(container).model(for: decoded) as? Trip)?.name == "trip 03", "a decoded identifier resolves")
        // An identifier of an entity the schema has not (decoded from another app's data): a
        // model of no class of the schema, in no context, rather than a stop.
        var fields = try #require(
            try JSONSerialization.jsonObject(with: try JSONEncoder().encode(ids[3])) as? [String: String])
        fields["entityName"] = "Voyage"
        fields["uri"] = fields["uri"]?.replacingOccurrences(of: "/Trip/", with: "/Voyage/")
        let foreign = try JSONDecoder().decode(
            PersistentIdentifier.self, from: try JSONSerialization.data(withJSONObject: fields))
        #expect(foreign.entityName == "Voyage" && foreign.description.contains("/Voyage/"))
        let unknown = context.model(for: foreign)
        #expect(!(unknown is Trip) && unknown.modelContext == nil && !unknown.hasChanges)
        #expect(context.registeredModel(for: foreign) as Trip? == nil)
        let registered: Trip? = context.registeredModel(for: ids[3])
        #expect(registered?.name == "trip 03")
        #expect((ModelContext(container).registeredModel(for: ids[3]) as Trip?) == nil, "another context holds none yet")

        let unsaved = Trip(name: "unsaved", destination: "even")
        context.insert(unsaved)
        var pending = FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "unsaved" })
        #expect(try context.fetch(pending).first === unsaved)
        pending.includePendingChanges = false
        #expect(try context.fetch(pending).isEmpty)
        context.rollback()

        var seen: [String] = []
        try context.enumerate(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 4) { trip in
            seen.append(trip.name)
        }
        #expect(seen == names)
    }

    @Test("a sort descriptor through a to-one relationship (`\\BucketListItem.trip?.name`)")
    func sortThroughRelationship() throws {
        let container = try container()
        let context = ModelContext(container)
        for (trip, item) in [("Zurich", "cheese"), ("Athens", "ruins"), ("Milan", "opera")] {
            let made = Trip(name: trip, destination: "x")
            made.bucketList = [BucketListItem(title: item)]
            context.insert(made)
        }
        try context.save()
        let items = try context.fetch(FetchDescriptor<BucketListItem>(sortBy: [SortDescriptor(\.trip?.name)]))
        #expect(items.map(\.title) == ["ruins", "opera", "cheese"])
        let reversed = try context.fetch(
            FetchDescriptor<BucketListItem>(sortBy: [SortDescriptor(\.trip?.name, order: .reverse)]))
        #expect(reversed.map(\.title) == ["cheese", "opera", "ruins"])
    }

    @Test("delete(model:where:) deletes the matches; transaction saves once")
    func deleteWhereAndTransaction() throws {
        let container = try container()
        let context = ModelContext(container)
        try seed(context, ["a", "b", "c", "d"])
        try context.delete(model: Trip.self, where: #Predicate { $0.destination == "odd" })
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name) == ["a", "c"])
        try context.transaction {
            context.insert(Trip(name: "e", destination: "x"))
            context.insert(Trip(name: "f", destination: "x"))
        }
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 4)
        try context.delete(model: Trip.self)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 0)
    }

    @Test("the change lists name the inserted, changed and deleted models; a batched fetch answers all")
    func changeListsAndBatches() throws {
        let container = try container()
        let context = ModelContext(container)
        try seed(context, ["a", "b", "c"])
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 2)
        #expect(trips.map(\.name) == ["a", "b", "c"])
        trips[0].name = "a2"
        context.delete(trips[1])
        let added = Trip(name: "d", destination: "x")
        context.insert(added)
        #expect(context.insertedModelsArray.map(\.persistentModelID) == [added.persistentModelID])
        #expect(context.changedModelsArray.map(\.persistentModelID) == [trips[0].persistentModelID])
        #expect(context.deletedModelsArray.map(\.persistentModelID) == [trips[1].persistentModelID])
    }

    @Test("deleteAllData empties every entity's rows and leaves the store usable")
    func deleteAllData() throws {
        let container = try container()
        let context = ModelContext(container)
        let trip = Trip(name: "Gone", destination: "x")
        trip.bucketList = [BucketListItem(title: "also gone")]
        context.insert(trip)
        try context.save()
        container.deleteAllData()
        let fresh = ModelContext(container)
        #expect(try fresh.fetchCount(FetchDescriptor<Trip>()) == 0)
        #expect(try fresh.fetchCount(FetchDescriptor<BucketListItem>()) == 0)
        fresh.insert(Trip(name: "After", destination: "x"))
        try fresh.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.name) == ["After"])
    }

    @Test("undo takes back an insertion and a change")
    func undo() throws {
        let container = try container()
        let context = ModelContext(container)
        context.undoManager = UndoManager()
        let trip = Trip(name: "Before", destination: "x")
        context.insert(trip)
        try context.save()
        context.undoManager?.beginUndoGrouping()
        trip.name = "After"
        context.undoManager?.endUndoGrouping()
        #expect(trip.name == "After")
        context.undoManager?.undo()
        #expect(trip.name == "Before")
        context.undoManager?.redo()
        #expect(trip.name == "After")
        context.undoManager?.beginUndoGrouping()
        let added = Trip(name: "Added", destination: "x")
        context.insert(added)
        context.undoManager?.endUndoGrouping()
        #expect(try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Added" })) == 1)
        context.undoManager?.undo()
        #expect(try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Added" })) == 0)
    }

    @Test("a model the app holds stays the context's model of its row; models no one holds are let go, their changes kept")
    func registryLetsUnheldModelsGo() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        let names = (0..<3000).map { String(format: "trip %04d", $0) }
        for name in names { writer.insert(Trip(name: name, destination: "x")) }
        try writer.save()

        let context = ModelContext(container)
        func window(_ offset: Int) throws -> [Trip] {
            var descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])
            descriptor.fetchOffset = offset
            descriptor.fetchLimit = 1000
            return try context.fetch(descriptor)
        }
        // Made in a function of their own, so that no temporary of the test holds them.
        func fetchFirst() throws -> (kept: Trip, unheld: WeakTrip, unheldChanged: WeakTrip) {
            let first = try window(0)
            first[2].destination = "changed, then dropped"
            return (first[0], WeakTrip(first[1]), WeakTrip(first[2]))
        }
        let (kept, unheld, unheldChanged) = try fetchFirst()
        for offset in [1000, 2000, 1000, 2000] { #expect(try window(offset).count == 1000) }
        #expect(unheld.model == nil, "a model only the context held was let go")
        #expect(unheldChanged.model == nil)
        let again = try window(0)
        #expect(again[0] === kept, "the model the app holds is the one fetched again")
        #expect(again.map(\.name) == Array(names[0..<1000]))
        #expect(again[2].destination == "changed, then dropped", "a dropped model's unsaved change lives in its row's object")
        #expect(context.hasChanges)
        try context.save()
        let check = try ModelContext(container).fetch(
            FetchDescriptor<Trip>(predicate: #Predicate { $0.destination != "x" }))
        #expect(check.map(\.name) == [names[2]])
    }
}

extension ModelContextBehaviourTests {
    @Test("a context the app lets go is released with its models; a model the app keeps keeps its context")
    func contextLifetime() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        for name in ["Faro", "Évora"] { writer.insert(Trip(name: name, destination: "Portugal")) }
        try writer.save()
        // Made in functions of their own, so that no temporary of the test holds them.
        func fetchAndDrop() throws -> (context: WeakContext, count: Int) {
            let context = ModelContext(container)
            let trips = try context.fetch(FetchDescriptor<Trip>())
            _ = trips.map(\.name)
            return (WeakContext(context), trips.count)
        }
        let (dropped, count) = try fetchAndDrop()
        #expect(count == 2)
        #expect(dropped.context == nil, "nothing the context made holds it once the app lets both go")

        func fetchAndKeep() throws -> (trip: Trip, context: WeakContext) {
            let context = ModelContext(container)
            let trip = try #require(try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).first)
            return (trip, WeakContext(context))
        }
        let (trip, kept) = try fetchAndKeep()
        #expect(kept.context != nil && trip.modelContext === kept.context)
        #expect(trip.name == "Faro")
        trip.destination = "Algarve"
        try #require(trip.modelContext).save()
        let algarve = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Algarve" })
        #expect(try ModelContext(container).fetchCount(algarve) == 1)
    }
}

extension ModelContextBehaviourTests {
    @Test("values set, set again and cleared before insertion read back and save as last set")
    func valuesBeforeInsertion() throws {
        let trip = Trip(name: "First", destination: "A", code: "c1")
        trip.destination = "B"
        trip.code = nil
        trip.name = "Second"
        #expect(trip.code == nil && trip.name == "Second" && trip.destination == "B")
        trip.code = "c2"
        trip.destination = "C"
        trip.code = nil
        trip.code = "c3"
        #expect(trip.name == "Second" && trip.destination == "C" && trip.code == "c3")
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(trip)
        try context.save()
        let saved = try ModelContext(container).fetch(FetchDescriptor<Trip>())
        #expect(saved.map { [$0.name, $0.destination, $0.code ?? "nil"] } == [["Second", "C", "c3"]])
    }
}

/// A model whose keys look alike to the list of values set before insertion (the same length
/// and first letter): telling them apart takes comparing them.
@Model final class Ledger {
    var label: String
    var level: Int
    var lines: Int
    var lemma: String?

    init(label: String, level: Int, lines: Int) {
        self.label = label
        self.level = level
        self.lines = lines
    }
}

extension ModelContextBehaviourTests {
    @Test("values of properties whose names look alike, set again and cleared before insertion, stay apart")
    func lookAlikeKeysBeforeInsertion() throws {
        let ledger = Ledger(label: "first", level: 1, lines: 10)
        ledger.lemma = "kept?"
        ledger.level = 2
        ledger.lemma = nil
        ledger.label = "second"
        ledger.lines = 20
        ledger.lemma = "kept"
        ledger.level = 3
        #expect(ledger.label == "second" && ledger.level == 3 && ledger.lines == 20 && ledger.lemma == "kept")
        let container = try ModelContainer(for: Ledger.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(ledger)
        try context.save()
        let saved = try ModelContext(container).fetch(FetchDescriptor<Ledger>())
        #expect(saved.map { "\($0.label) \($0.level) \($0.lines) \($0.lemma ?? "nil")" } == ["second 3 20 kept"])
    }
}

extension ModelContextBehaviourTests {
    @Test("a model whose insertion was rolled back is never taken for the model of a row fetched later")
    func rolledBackModelsStayApart() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        let names = (0..<300).map { String(format: "saved %03d", $0) }
        for name in names { writer.insert(Trip(name: name, destination: "kept")) }
        try writer.save()

        let context = ModelContext(container)
        // Rounds of inserts rolled back, each followed by a fetch: the rolled-back rows' objects
        // are let go, and the fetch's new objects are made in the memory they had.
        for round in 0..<5 {
            let unsaved = (0..<300).map { Trip(name: "unsaved \(round) \($0)", destination: "dropped") }
            for trip in unsaved { context.insert(trip) }
            context.rollback()
            #expect(unsaved.allSatisfy { $0.modelContext == nil }, "a rolled-back model is in no context")
            let fetched = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
            let unsavedIDs = Set(unsaved.map(ObjectIdentifier.init))
            #expect(fetched.filter { unsavedIDs.contains(ObjectIdentifier($0)) }.isEmpty, "round \(round)")
            #expect(fetched.map(\.name) == names)
            #expect(fetched.allSatisfy { $0.modelContext === context && $0.destination == "kept" })
            #expect(
                unsaved.map(\.destination) == Array(repeating: "dropped", count: 300), "rolled back, a model keeps its values")
            #expect(unsaved.map(\.name) == (0..<300).map { "unsaved \(round) \($0)" })
        }
        // A rolled-back model inserted again is saved with its values, set before and after.
        let again = Trip(name: "inserted again", destination: "first")
        context.insert(again)
        context.rollback()
        again.destination = "second"
        context.insert(again)
        #expect(again.modelContext === context && context.hasChanges)
        try context.save()
        let saved = try ModelContext(container).fetch(
            FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "inserted again" }))
        #expect(saved.map(\.destination) == ["second"])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 301)
    }
}

extension ModelContextBehaviourTests {
    @Test("a rolled-back model linked to a saved row is inserted again without its old link, and can be linked anew")
    func rolledBackModelWithRelationship() throws {
        let container = try ModelContainer(
            for: Trip.self, BucketListItem.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        writer.insert(Trip(name: "Lisbon", destination: "PT"))
        writer.insert(Trip(name: "Porto", destination: "PT"))
        try writer.save()
        let byName = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])

        let first = ModelContext(container)
        let lisbon = try #require(try first.fetch(byName).first)
        let item = BucketListItem(title: "Tram 28")
        first.insert(item)
        item.trip = lisbon
        #expect(lisbon.bucketList.map(\.title) == ["Tram 28"])
        first.rollback()
        #expect(item.modelContext == nil && item.title == "Tram 28")
        #expect(item.trip == nil, "in no context, a rolled-back model has no related models")
        #expect(lisbon.bucketList.isEmpty, "the rollback took the link back on the saved side")

        // Inserted again into another context: its values, not the link it had in the first.
        let second = ModelContext(container)
        second.insert(item)
        try second.save()
        func stored() throws -> (items: [String?], lists: [[String]]) {
            let check = ModelContext(container)
            return (
                try check.fetch(FetchDescriptor<BucketListItem>()).map { $0.trip?.name },
                try check.fetch(byName).map { $0.bucketList.map(\.title) }
            )
        }
        var saved = try stored()
        #expect(saved.items == [nil] && saved.lists == [[], []])

        // Linked there to that context's model of the row, both sides agree.
        item.trip = try #require(try second.fetch(byName).last)
        try second.save()
        saved = try stored()
        #expect(saved.items == ["Porto"] && saved.lists == [[], ["Tram 28"]])
    }
}

extension ModelContextBehaviourTests {
    @Test("another context's save reaches a context the app made at its next operation, never behind its owner's back")
    func mergesWaitForTheNextOperation() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        writer.insert(Trip(name: "Faro", destination: "before"))
        try writer.save()

        let reader = ModelContext(container)
        let trip = try #require(try reader.fetch(FetchDescriptor<Trip>()).first)
        #expect(trip.destination == "before")
        let written = try #require(try writer.fetch(FetchDescriptor<Trip>()).first)
        written.destination = "after"
        try writer.save()
        // The reader's models are its owner's: nothing changes them on another thread (its Core
        // Data context's queue used to merge the save there, racing the owner's reads).
        Thread.sleep(forTimeInterval: 0.2)
        #expect(trip.destination == "before")
        #expect(try reader.fetchCount(FetchDescriptor<Trip>()) == 1)
        #expect(trip.destination == "after", "merged as the reader's next operation started")
    }
}

/// A context held weakly by a test.
private final class WeakContext {
    weak var context: ModelContext?
    init(_ context: ModelContext) { self.context = context }
}

/// A model held weakly by a test.
private final class WeakTrip {
    weak var model: Trip?
    init(_ model: Trip) { self.model = model }
}

/// A model actor whose context autosaves.
@ModelActor
actor AutosavingImporter {
    /// Inserts trips with autosave on; answers how many rows another context sees meanwhile.
    func insert(_ names: [String]) throws -> Int {
        modelContext.autosaveEnabled = true
        for name in names { modelContext.insert(Trip(name: name, destination: "x")) }
        Thread.sleep(forTimeInterval: 0.05)
        return try ModelContext(modelContainer).fetchCount(FetchDescriptor<Trip>())
    }

    func hasChanges() -> Bool { modelContext.hasChanges }
}

extension ModelContextBehaviourTests {
    /// A fetched model of a final class keeps only its row until something asks for its backing
    /// data (its identifier, context, a relationship, a deletion): what it reads and writes is
    /// the same row before and after.
    @Test("a fetched model reads and writes its row the same before and after its backing data is made")
    func fetchedRowThenBackingData() throws {
        let container = try container()
        try seed(ModelContext(container), ["Faro", "Lagos"])
        let context = ModelContext(container)
        let byName = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])
        let trips = try context.fetch(byName)
        let faro = try #require(trips.first)
        #expect(faro.name == "Faro" && faro.destination == "even")
        faro.destination = "Algarve"
        #expect(context.hasChanges, "a write through the row reaches the context's object")
        // Asked for: the identifier, context and changes come from the backing data made now.
        #expect(faro.hasChanges && faro.modelContext === context)
        #expect(faro.persistentModelID == trips[0].persistentModelID)
        #expect(faro.destination == "Algarve", "the value written through the row, read through the backing data")
        faro.name = "Faro Velha"
        #expect(faro.bucketList.isEmpty)
        // The context's model of the row stays the same model, before and after.
        let lagos = trips[1]
        let again = try context.fetch(byName)
        #expect(again.count == 2 && again[0] === faro && again[1] === lagos)
        try context.save()
        let saved = try ModelContext(container).fetch(byName).map { "\($0.name) \($0.destination)" }
        #expect(saved == ["Faro Velha Algarve", "Lagos odd"])

        // Deleted while it keeps only its row: the deletion is saved.
        let other = ModelContext(container)
        let doomed = try #require(try other.fetch(byName).last)
        #expect(doomed.name == "Lagos")
        other.delete(doomed)
        #expect(doomed.isDeleted && other.deletedModelsArray.count == 1 && doomed.modelContext === other)
        try other.save()
        // Saved, the deletion takes the model out of its context; it keeps the values it read.
        #expect(doomed.modelContext == nil && other.deletedModelsArray.isEmpty)
        #expect(doomed.name == "Lagos")
        #expect(try other.fetch(byName).map(\.name) == ["Faro Velha"])
        #expect(try ModelContext(container).fetch(byName).map(\.name) == ["Faro Velha"])
    }

    @Test("a write through a fetched model's row autosaves at the context's next operation")
    func fetchedRowWriteAutosaves() async throws {
        let container = try container()
        try seed(ModelContext(container), ["Faro"])
        let results = try await Task.detached {
            let context = ModelContext(container)
            context.autosaveEnabled = true
            let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
            trip.destination = "Algarve"
            let before = context.hasChanges
            _ = try context.fetchCount(FetchDescriptor<Trip>())
            let after = context.hasChanges
            return (before, after)
        }.value
        #expect(results.0 && !results.1)
        let destinations = try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.destination)
        #expect(destinations == ["Algarve"])
    }
}

extension ModelContextBehaviourTests {
    /// The context's registry of models holds unowned references; a mirror (`dump`, a test
    /// library describing a failed expectation) used to load them strongly and stop the program
    /// once the models were gone.
    @Test("a context reflects (dump, Mirror) after the models it made are gone")
    func contextReflectsAfterItsModelsAreGone() throws {
        let container = try container()
        try seed(ModelContext(container), ["Faro", "Lagos"])
        let context = ModelContext(container)
        func fetchAndDrop() throws -> Int { try context.fetch(FetchDescriptor<Trip>()).map(\.name).count }
        #expect(try fetchAndDrop() == 2)
        // The rows' objects name their models (SwiftData's objects do): the table is empty.
        let registry = try #require(Mirror(reflecting: context).children.first { $0.label == "registry" })
        #expect(Mirror(reflecting: registry.value).children.map { "\($0.label ?? "") \($0.value)" } == ["entries 0"])
        var text = ""
        dump(context, to: &text, maxDepth: 3)
        #expect(text.contains("entries: 0"))
    }

    /// A row's object names its model by an unowned reference too: it reflects with its model
    /// while the model is alive, and without it after.
    @Test("an object reflects with its model while the model is alive, and after it is gone")
    func objectReflectsAfterItsModelIsGone() throws {
        let container = try container()
        try seed(ModelContext(container), ["Faro"])
        let context = ModelContext(container)
        func model(of object: AnyObject) -> Any? {
            Mirror(reflecting: object).children.first { $0.label == "model" }?.value
        }
        let object: AnyObject
        do {
            let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
            object = try #require(trip._predicateArgument as AnyObject?)
            // SwiftData's class of row objects (the schema's entities name it), not Core Data's.
            #expect(String(reflecting: type(of: object)) == "SwiftData._ModelObject")
            #expect((model(of: object) as? Trip) === trip)
            #expect(try context.fetch(FetchDescriptor<Trip>()).first === trip, "the object's model is fetched again")
        }
        #expect(Mirror(reflecting: object).superclassMirror?.children.contains { $0.label == "entity" } == true)
        // The model is gone.
        let gone = try #require(model(of: object))
        #expect("\(gone)" == "nil")
        var text = ""
        dump(object, to: &text, maxDepth: 2)
        #expect(text.contains("- model: nil"))
        // A fetch makes a model anew, which the object then names.
        let again = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        #expect((model(of: object) as? Trip) === again && again.name == "Faro")
    }
}
