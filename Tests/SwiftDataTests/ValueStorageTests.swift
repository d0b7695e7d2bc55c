import CoreData
import Foundation
import SwiftData
import Testing

@Suite("How SwiftData values are stored")
struct ValueStorageTests {
    @Test("an enumeration keeps its raw value, arrays a binary property list, structs their values; all read back")
    func valuesRoundTrip() throws {
        let url = try temporaryStoreURL()
        let when = Date(timeIntervalSinceReferenceDate: 123_456.5)
        do {
            let container = try ModelContainer(for: HandNote.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(
                HandNote(
                    mood: .busy, tags: ["a", "b"], place: HandPlace(latitude: 59.9, longitude: 10.7, label: "Oslo"),
                    when: when))
            context.insert(HandNote(mood: .calm, tags: [], place: nil, when: when))
            try context.save()
            // A collection of values is one encoded column, which a predicate cannot look into
            // (as with Apple's): a typed error, not a wrong answer.
            #expect(throws: (any Error).self) {
                try context.fetch(FetchDescriptor<HandNote>(predicate: #Predicate { $0.tags.count > 0 }))
            }
        }
        let model = try #require(NSManagedObjectModel.makeManagedObjectModel(for: [HandNote.self]))
        let entity = try #require(model.entitiesByName["HandNote"])
        #expect(entity.attributesByName["mood"]?.attributeType == .stringAttributeType)
        #expect(entity.attributesByName["tags"]?.attributeType == .binaryDataAttributeType)
        #expect(entity.attributesByName["when"]?.attributeType == .dateAttributeType)
        #expect(entity.attributesByName["when"]?.isOptional == false)
        #expect(entity.attributesByName["place"]?.isOptional == true)
        #expect(entity.attributesByName["place"]?.attributeType == .compositeAttributeType)

        let coreData = NSPersistentContainer(name: "check", managedObjectModel: model)
        coreData.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        coreData.loadPersistentStores { _, error in #expect(error == nil) }
        let request = NSFetchRequest<NSManagedObject>(entityName: "HandNote")
        request.sortDescriptors = [NSSortDescriptor(key: "mood", ascending: true)]
        let rows = try coreData.viewContext.fetch(request)
        #expect(rows.map { $0.value(forKey: "mood") as? String } == ["busy", "calm"])
        let tags = try #require(rows.first?.value(forKey: "tags") as? Data)
        #expect(tags.starts(with: Array("bplist00".utf8)))
        #expect(try PropertyListDecoder().decode([String].self, from: tags) == ["a", "b"])
        let place = try #require(rows.first?.value(forKey: "place") as? [String: Any])
        #expect(place["latitude"] as? Double == 59.9 && place["label"] as? String == "Oslo")
        #expect(rows.last?.value(forKey: "place") == nil)

        let container = try ModelContainer(for: HandNote.self, configurations: ModelConfiguration(url: url))
        let notes = try ModelContext(container).fetch(FetchDescriptor<HandNote>()).sorted { $0.mood.rawValue < $1.mood.rawValue }
        #expect(notes.map(\.mood) == [.busy, .calm])
        #expect(notes.map(\.tags) == [["a", "b"], []])
        #expect(notes.map(\.place) == [HandPlace(latitude: 59.9, longitude: 10.7, label: "Oslo"), nil])
        #expect(notes.map(\.when) == [when, when])
        let calm = try ModelContext(container).fetch(
            FetchDescriptor<HandNote>(predicate: #Predicate { $0.mood.rawValue == "calm" }))
        #expect(calm.count == 1)
    }
}
