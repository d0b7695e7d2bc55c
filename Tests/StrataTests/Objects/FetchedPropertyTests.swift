import Foundation
import Testing

@testable import Strata

/// A fetched property declared inside an `Entity` of a test model.
private struct Fetched: EntityMember {
    let property = NSFetchedPropertyDescription()

    init(_ name: String, entity: String, predicate: String?, sortedBy key: String? = nil, userInfo: [AnyHashable: Any]? = nil) {
        property.name = name
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entity)
        request.predicate = predicate.map { NSPredicate(format: $0) }
        request.sortDescriptors = key.map { [NSSortDescriptor(key: $0, ascending: true)] }
        property.fetchRequest = request
        property.userInfo = userInfo
    }

    func add(to entity: NSEntityDescription) { entity.properties.append(property) }
}

/// Fetched properties: evaluated on the first read with `$FETCH_SOURCE` and
/// `$FETCHED_PROPERTY` bound, an array in the request's order, kept until the object is
/// refreshed.
@Suite struct FetchedPropertyTests {
    private static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Author") {
                Attribute("name", .stringAttributeType)
                Relationship("books", to: "Book", inverse: "author", toMany: true)
                Fetched("recentBooks", entity: "Book", predicate: "author == $FETCH_SOURCE AND year > 2000", sortedBy: "year")
                Fetched(
                    "booksAfterThreshold", entity: "Book",
                    predicate: "author == $FETCH_SOURCE AND year >= $FETCHED_PROPERTY.userInfo.threshold", sortedBy: "title",
                    userInfo: ["threshold": 1990])
                Fetched("namesakes", entity: "Book", predicate: "title BEGINSWITH $FETCH_SOURCE.name", sortedBy: "title")
            }
            Entity("Book") {
                Attribute("title", .stringAttributeType)
                Attribute("year", .integer64AttributeType, optional: false, defaultValue: Int64(0))
                Relationship("author", to: "Author", inverse: "books")
            }
        }
    }

    private static func book(_ title: String, _ year: Int64, _ author: NSManagedObject?, in context: NSManagedObjectContext) {
        let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
        book.setValue(title, forKey: "title")
        book.setValue(year, forKey: "year")
        book.setValue(author, forKey: "author")
    }

    private static func titles(_ value: Any?) -> [String]? {
        (value as? [NSManagedObject])?.map { $0.value(forKey: "title") as? String ?? "?" }
    }

    /// Le Guin's books after 2000 (in year order), and those from the property's threshold on;
    /// a book of another author never counts.
    private static func seed(_ context: NSManagedObjectContext) throws -> (NSManagedObject, NSManagedObject) {
        let leGuin = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
        leGuin.setValue("Le Guin", forKey: "name")
        let other = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
        other.setValue("Lem", forKey: "name")
        book("Tales from Earthsea", 2001, leGuin, in: context)
        book("Lavinia", 2008, leGuin, in: context)
        book("The Dispossessed", 1974, leGuin, in: context)
        book("Four Ways to Forgiveness", 1995, leGuin, in: context)
        book("Lemurs", 2005, other, in: context)
        book("Le Guin: A Life", 2020, nil, in: context)
        try context.save()
        return (leGuin, other)
    }

    @Test func theValueIsTheFetchOfItsRequestWithTheSourceBound() throws {
        let store = try ScratchStore(model: Self.model())
        defer { store.remove() }
        let context = store.newContext()
        try context.performAndWait {
            let (leGuin, other) = try Self.seed(context)
            #expect(Self.titles(leGuin.value(forKey: "recentBooks")) == ["Tales from Earthsea", "Lavinia"])
            #expect(Self.titles(other.value(forKey: "recentBooks")) == ["Lemurs"])
            // `$FETCH_SOURCE.name`: the titles that begin with the author's name.
            #expect(Self.titles(leGuin.value(forKey: "namesakes")) == ["Le Guin: A Life"])
            #expect(Self.titles(other.value(forKey: "namesakes")) == ["Lemurs"])
            // Read on another context's copy of the object, too.
            let second = store.newContext()
            let copy = second.performAndWait { second.object(with: leGuin.objectID) }
            let fetched = second.performAndWait { Self.titles(copy.value(forKey: "recentBooks")) }
            #expect(fetched == ["Tales from Earthsea", "Lavinia"])
        }
    }

    @Test func fetchedPropertyVariablesReachTheDescriptionsUserInfo() throws {
        let store = try ScratchStore(model: Self.model())
        defer { store.remove() }
        let context = store.newContext()
        try context.performAndWait {
            let (leGuin, _) = try Self.seed(context)
            #expect(
                Self.titles(leGuin.value(forKey: "booksAfterThreshold")) == [
                    "Four Ways to Forgiveness", "Lavinia", "Tales from Earthsea",
                ])
        }
    }

    @Test func theValueIsKeptUntilTheObjectIsRefreshed() throws {
        let store = try ScratchStore(model: Self.model())
        defer { store.remove() }
        let context = store.newContext()
        try context.performAndWait {
            let (leGuin, _) = try Self.seed(context)
            let first = leGuin.value(forKey: "recentBooks") as? [NSManagedObject]
            #expect(first?.count == 2)
            Self.book("The Other Wind", 2003, leGuin, in: context)
            try context.save()
            // Not re-evaluated: the same array as before.
            #expect(Self.titles(leGuin.value(forKey: "recentBooks")) == ["Tales from Earthsea", "Lavinia"])
            context.refresh(leGuin, mergeChanges: false)
            #expect(Self.titles(leGuin.value(forKey: "recentBooks")) == ["Tales from Earthsea", "The Other Wind", "Lavinia"])
            // A refresh that keeps the object's own changes drops the kept value too.
            leGuin.setValue("Ursula K. Le Guin", forKey: "name")
            Self.book("Words Are My Matter", 2016, leGuin, in: context)
            try context.save()
            leGuin.setValue("U. K. Le Guin", forKey: "name")
            #expect(leGuin.value(forKey: "recentBooks") as? [NSManagedObject] != nil)
            context.refresh(leGuin, mergeChanges: true)
            #expect(leGuin.value(forKey: "name") as? String == "U. K. Le Guin")
            #expect((leGuin.value(forKey: "recentBooks") as? [NSManagedObject])?.count == 4)
        }
    }

    @Test func anObjectWithoutAContextHasNoFetchedValue() throws {
        let model = Self.model()
        let entity = try #require(model.entitiesByName["Author"])
        let author = NSManagedObject(entity: entity, insertInto: nil)
        #expect(author.value(forKey: "recentBooks") == nil)
    }

    /// The corpus's ColorsDemo model declares `testFetchProperty`, a request for every
    /// palette without a predicate.
    @Test(.enabled(if: TestCorpus.isAvailable, "the model corpus is absent"))
    func aCorpusModelsFetchedPropertyFetchesItsEntity() throws {
        let url = TestCorpus.models.appendingPathComponent(
            "JohnEstropia__CoreStore__Classic.ColorsDemo/ColorsDemo.xcdatamodel/contents")
        let model = try NSManagedObjectModel.load(contentsOf: url)
        let store = try ScratchStore(model: model)
        defer { store.remove() }
        let context = store.newContext()
        try context.performAndWait {
            var palettes: [NSManagedObject] = []
            for hue in [0.1, 0.5, 0.9] {
                let palette = NSEntityDescription.insertNewObject(forEntityName: "Palette", into: context)
                palette.setValue(Float(hue), forKey: "hue")
                palettes.append(palette)
            }
            try context.save()
            let value = palettes[1].value(forKey: "testFetchProperty") as? [NSManagedObject]
            #expect(Set((value ?? []).map(\.objectID)) == Set(palettes.map(\.objectID)))
        }
    }

    /// SwiftGen's model gives its fetched property a `userInfo` (key = value) and the
    /// predicate `true == true`; a predicate reading that `userInfo` selects alike.
    @Test(.enabled(if: TestCorpus.isAvailable, "the model corpus is absent"))
    func aCorpusFetchedPropertysUserInfoIsReadable() throws {
        let url = TestCorpus.models.appendingPathComponent("SwiftGen__SwiftGen__Model/Model 2.xcdatamodel/contents")
        let model = try NSManagedObjectModel.load(contentsOf: url)
        let main = try #require(model.entitiesByName["MainEntity"])
        let fetched = try #require(main.propertiesByName["fetchedProperty"] as? NSFetchedPropertyDescription)
        #expect(fetched.userInfo?["key"] as? String == "value")
        let request = try #require(fetched.fetchRequest)
        let source = NSManagedObject(entity: main, insertInto: nil)
        let matching = try #require(
            FetchedPropertyEvaluation.request(for: request, source: source, property: fetched))
        #expect(matching.predicate?.evaluate(with: nil) == true)
        request.predicate = NSPredicate(format: "$FETCHED_PROPERTY.userInfo.key == 'value'")
        let resolved = try #require(FetchedPropertyEvaluation.request(for: request, source: source, property: fetched))
        #expect(resolved.predicate?.predicateFormat == "\"value\" == \"value\"")
        #expect(resolved.entityName == "NewEntity")
        request.predicate = NSPredicate(format: "$FETCHED_PROPERTY.userInfo.key == 'other'")
        let refused = try #require(FetchedPropertyEvaluation.request(for: request, source: source, property: fetched))
        #expect(refused.predicate?.evaluate(with: nil) == false)
    }
}
