import CoreData
import Foundation
import GRDB
import SwiftData
import Testing

// Codable structs in models, as Apple's documentation and WWDC23's "Model your schema with
// SwiftData" use them: SwiftData stores them as composite attributes, a column per value.

struct TripCoordinates: Codable, Equatable, Hashable {
    var latitude: Double
    var longitude: Double
}

enum TripKind: String, Codable, CaseIterable {
    case city, beach, mountains
}

struct TripAddress: Codable, Equatable {
    var street: String
    var city: String
    var postcode: Int?
    var kind: TripKind
    var location: TripCoordinates?
    var tags: [String]
    var since: Date
    var reference: UUID
}

/// A struct whose `Codable` conformance renames a value.
struct TripBudget: Codable, Equatable {
    var amount: Decimal
    var currency: String

    enum CodingKeys: String, CodingKey {
        case amount = "total"
        case currency
    }
}

/// A value whose `Codable` conformance writes a single value: no composite, its binary
/// property list (Apple's SwiftData stops the program on such types).
struct TripDistance: Codable, Equatable {
    var meters: Double

    init(meters: Double) { self.meters = meters }
    init(from decoder: any Decoder) throws { meters = try decoder.singleValueContainer().decode(Double.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(meters)
    }
}

/// An enumeration with associated values: its binary property list.
enum TripLeg: Codable, Equatable {
    case walk(minutes: Int)
    case train(line: String)
}

@Model
final class CompositeTrip {
    var name: String
    var destination: TripAddress
    var origin: TripAddress?
    var budget: TripBudget = TripBudget(amount: 0, currency: "EUR")
    var distance: TripDistance?
    var firstLeg: TripLeg?

    init(name: String, destination: TripAddress, origin: TripAddress? = nil) {
        self.name = name
        self.destination = destination
        self.origin = origin
    }
}

@Suite("Codable structs as composite attributes")
struct CompositeValueTests {
    static let since = Date(timeIntervalSinceReferenceDate: 700_000_000)

    static func address(_ city: String, postcode: Int? = nil, location: TripCoordinates? = nil) -> TripAddress {
        TripAddress(
            street: "1 \(city) Street", city: city, postcode: postcode, kind: city == "Nice" ? .beach : .city,
            location: location, tags: [city.lowercased(), "visited"], since: since,
            reference: UUID(uuidString: "00000000-0000-0000-0000-00000000000\(city.count)") ?? UUID())
    }

    /// What each trip holds, by name: the oracle every read is checked against.
    static let trips: [String: (destination: TripAddress, origin: TripAddress?)] = [
        "oslo": (address("Oslo", postcode: 150, location: TripCoordinates(latitude: 59.91, longitude: 10.75)), nil),
        "nice": (address("Nice"), address("Paris", postcode: 75001)),
    ]

    private func write(to url: URL) throws {
        let container = try ModelContainer(for: CompositeTrip.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        for name in Self.trips.keys.sorted() {
            let (destination, origin) = try #require(Self.trips[name])
            let trip = CompositeTrip(name: name, destination: destination, origin: origin)
            if name == "nice" {
                trip.budget = TripBudget(amount: Decimal(string: "1250.50") ?? 0, currency: "EUR")
                trip.distance = TripDistance(meters: 930_000)
                trip.firstLeg = .train(line: "TGV")
            }
            context.insert(trip)
        }
        try context.save()
    }

    @Test("each value of a struct has its column; collections and single values stay encoded")
    func columns() throws {
        let url = try temporaryStoreURL()
        try write(to: url)
        let database = try DatabaseQueue(path: url.path)
        let columns = try database.read { db in
            try Row.fetchAll(db, sql: "PRAGMA table_info(ZCOMPOSITETRIP)").map {
                "\($0["name"] as String) \($0["type"] as String)"
            }
        }
        let expected: Set<String> = [
            "ZDESTINATION_STREET VARCHAR", "ZDESTINATION_CITY VARCHAR", "ZDESTINATION_POSTCODE INTEGER",
            "ZDESTINATION_KIND VARCHAR", "ZDESTINATION_LOCATION_LATITUDE FLOAT", "ZDESTINATION_LOCATION_LONGITUDE FLOAT",
            "ZDESTINATION_TAGS BLOB", "ZDESTINATION_SINCE TIMESTAMP", "ZDESTINATION_REFERENCE BLOB",
            "ZORIGIN_CITY VARCHAR", "ZBUDGET_TOTAL DECIMAL", "ZBUDGET_CURRENCY VARCHAR", "ZDISTANCE BLOB", "ZFIRSTLEG BLOB",
        ]
        #expect(expected.isSubset(of: Set(columns)), "\(columns)")
        let oslo = try #require(
            try database.read { db in
                try Row.fetchOne(
                    db,
                    sql: """
                        SELECT ZDESTINATION_CITY, ZDESTINATION_POSTCODE, ZDESTINATION_KIND, ZDESTINATION_LOCATION_LATITUDE,
                        ZORIGIN_CITY, ZBUDGET_CURRENCY FROM ZCOMPOSITETRIP WHERE ZNAME = 'oslo'
                        """)
            })
        #expect(oslo[0] as String == "Oslo")
        #expect(oslo[1] as Int == 150)
        #expect(oslo[2] as String == "city")
        #expect(oslo[3] as Double == 59.91)
        #expect(oslo[4] as String? == nil)
        #expect(oslo[5] as String == "EUR")
    }

    @Test("values read back whole, through SwiftData and through Core Data as dictionaries")
    func roundTrip() throws {
        let url = try temporaryStoreURL()
        try write(to: url)
        let container = try ModelContainer(for: CompositeTrip.self, configurations: ModelConfiguration(url: url))
        let trips = try ModelContext(container).fetch(FetchDescriptor<CompositeTrip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["nice", "oslo"])
        for trip in trips {
            let expected = try #require(Self.trips[trip.name])
            #expect(trip.destination == expected.destination)
            #expect(trip.origin == expected.origin)
        }
        #expect(trips[0].budget == TripBudget(amount: Decimal(string: "1250.50") ?? 0, currency: "EUR"))
        #expect(trips[1].budget == TripBudget(amount: 0, currency: "EUR"))
        #expect(trips[0].distance == TripDistance(meters: 930_000) && trips[1].distance == nil)
        #expect(trips[0].firstLeg == .train(line: "TGV") && trips[1].firstLeg == nil)

        let model = try #require(NSManagedObjectModel.makeManagedObjectModel(for: [CompositeTrip.self]))
        let entity = try #require(model.entitiesByName["CompositeTrip"])
        // Core Data's class for an app's Core Data code (a container's context has its own).
        #expect(entity.managedObjectClassName == "NSManagedObject")
        let destination = try #require(entity.attributesByName["destination"] as? NSCompositeAttributeDescription)
        #expect(destination.isOptional == false)
        #expect(
            destination.elements.map(\.name) == ["street", "city", "postcode", "kind", "location", "tags", "since", "reference"])
        #expect(destination.elements.map(\.isOptional) == [false, false, true, false, true, false, false, false])
        #expect(entity.attributesByName["origin"]?.isOptional == true)
        #expect(entity.attributesByName["distance"]?.attributeType == .binaryDataAttributeType)

        let coreData = NSPersistentContainer(name: "check", managedObjectModel: model)
        coreData.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        coreData.loadPersistentStores { _, error in #expect(error == nil) }
        let request = NSFetchRequest<NSManagedObject>(entityName: "CompositeTrip")
        request.predicate = NSPredicate(format: "destination.location.latitude > 50")
        let rows = try coreData.viewContext.fetch(request)
        #expect(rows.compactMap { $0.value(forKey: "name") as? String } == ["oslo"])
        #expect(rows.allSatisfy { type(of: $0) == NSManagedObject.self })
        let read = try #require(rows.first?.value(forKey: "destination") as? [String: Any])
        #expect(read["city"] as? String == "Oslo" && read["kind"] as? String == "city")
        #expect((read["location"] as? [String: Any])?["longitude"] as? Double == 10.75)
    }

    @Test("#Predicate and sorts read a struct's values")
    func predicates() throws {
        let url = try temporaryStoreURL()
        try write(to: url)
        let container = try ModelContainer(for: CompositeTrip.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let inOslo = try context.fetch(FetchDescriptor<CompositeTrip>(predicate: #Predicate { $0.destination.city == "Oslo" }))
        #expect(inOslo.map(\.name) == ["oslo"])
        let fromParis = try context.fetch(
            FetchDescriptor<CompositeTrip>(predicate: #Predicate { $0.origin?.city == "Paris" }))
        #expect(fromParis.map(\.name) == ["nice"])
        let north = try context.fetch(
            FetchDescriptor<CompositeTrip>(predicate: #Predicate { ($0.destination.location?.latitude ?? 0) > 50 }))
        #expect(north.map(\.name) == ["oslo"])
        let byCity = try context.fetch(
            FetchDescriptor<CompositeTrip>(sortBy: [SortDescriptor(\.destination.city, order: .reverse)]))
        #expect(byCity.map(\.name) == ["oslo", "nice"])
        // An unsaved change is seen by a fetch that includes pending changes.
        let nice = try #require(byCity.last)
        nice.destination.city = "Oslo"
        let both = try context.fetch(FetchDescriptor<CompositeTrip>(predicate: #Predicate { $0.destination.city == "Oslo" }))
        #expect(Set(both.map(\.name)) == ["nice", "oslo"])
    }

    @Test("a changed struct is saved whole, and a struct set to nil clears every column")
    func changes() throws {
        let url = try temporaryStoreURL()
        try write(to: url)
        var expected = Self.trips
        do {
            let container = try ModelContainer(for: CompositeTrip.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            for trip in try context.fetch(FetchDescriptor<CompositeTrip>()) {
                if trip.name == "oslo" {
                    trip.destination.location?.latitude = 60.0
                    trip.destination.tags.append("fjord")
                    trip.destination.postcode = nil
                    trip.origin = Self.address("Bergen")
                } else {
                    trip.origin = nil
                    trip.destination.kind = .mountains
                }
            }
            try context.save()
        }
        expected["oslo"]?.destination.location?.latitude = 60.0
        expected["oslo"]?.destination.tags.append("fjord")
        expected["oslo"]?.destination.postcode = nil
        expected["oslo"]?.origin = Self.address("Bergen")
        expected["nice"]?.origin = nil
        expected["nice"]?.destination.kind = .mountains
        let container = try ModelContainer(for: CompositeTrip.self, configurations: ModelConfiguration(url: url))
        for trip in try ModelContext(container).fetch(FetchDescriptor<CompositeTrip>()) {
            let oracle = try #require(expected[trip.name])
            #expect(trip.destination == oracle.destination, "\(trip.name)")
            #expect(trip.origin == oracle.origin, "\(trip.name)")
        }
        let database = try DatabaseQueue(path: url.path)
        let cleared = try database.read { db in
            try Row.fetchOne(
                db, sql: "SELECT ZORIGIN_CITY, ZORIGIN_STREET, ZORIGIN_SINCE FROM ZCOMPOSITETRIP WHERE ZNAME = 'nice'")
        }
        #expect(cleared?.databaseValues.allSatisfy(\.isNull) == true)
    }

    @Test("a struct's coding keys name its elements")
    func codingKeysNameElements() throws {
        let model = try #require(NSManagedObjectModel.makeManagedObjectModel(for: [CompositeTrip.self]))
        let budget = try #require(
            model.entitiesByName["CompositeTrip"]?.attributesByName["budget"] as? NSCompositeAttributeDescription)
        #expect(budget.elements.map(\.name) == ["total", "currency"])
        #expect(budget.elements.map(\.attributeType) == [.decimalAttributeType, .stringAttributeType])
        #expect(budget.isOptional == false)
    }
}

// A struct that gains a value between two schema versions: a lightweight stage adds its column;
// the values the rows had are kept.

enum PostcardSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Postcard.self] }

    struct Stamp: Codable, Equatable {
        var country: String
        var cents: Int
    }

    @Model
    final class Postcard {
        var message: String
        var stamp: Stamp

        init(message: String, stamp: Stamp) {
            self.message = message
            self.stamp = stamp
        }
    }
}

enum PostcardSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Postcard.self] }

    struct Stamp: Codable, Equatable {
        var country: String
        var cents: Int
        var postmark: String?
    }

    @Model
    final class Postcard {
        var message: String
        var stamp: Stamp

        init(message: String, stamp: Stamp) {
            self.message = message
            self.stamp = stamp
        }
    }
}

enum PostcardMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [PostcardSchemaV1.self, PostcardSchemaV2.self] }
    static var stages: [MigrationStage] {
        [.lightweight(fromVersion: PostcardSchemaV1.self, toVersion: PostcardSchemaV2.self)]
    }
}

extension CompositeValueTests {
    @Test("a struct that gains a value migrates lightweight, keeping every row's values")
    func structGainsAValue() throws {
        let url = try temporaryStoreURL()
        let written = [("hello", "NO", 170), ("hi", "SE", 95)]
        do {
            let container = try ModelContainer(
                for: Schema(versionedSchema: PostcardSchemaV1.self), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            for (message, country, cents) in written {
                context.insert(
                    PostcardSchemaV1.Postcard(message: message, stamp: PostcardSchemaV1.Stamp(country: country, cents: cents)))
            }
            try context.save()
        }
        let container = try ModelContainer(
            for: Schema(versionedSchema: PostcardSchemaV2.self), migrationPlan: PostcardMigrationPlan.self,
            configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let cards = try context.fetch(FetchDescriptor<PostcardSchemaV2.Postcard>(sortBy: [SortDescriptor(\.message)]))
        #expect(cards.map(\.message) == written.map(\.0))
        #expect(cards.map(\.stamp) == written.map { PostcardSchemaV2.Stamp(country: $0.1, cents: $0.2, postmark: nil) })
        cards[0].stamp.postmark = "Oslo"
        try context.save()
        let reread = try ModelContext(container).fetch(
            FetchDescriptor<PostcardSchemaV2.Postcard>(predicate: #Predicate { $0.stamp.postmark == "Oslo" }))
        #expect(reread.map(\.message) == ["hello"])
    }
}

// Two struct types of one name in one schema.
enum KitchenParts {
    struct Size: Codable, Equatable { var width: Int }
}

enum GardenParts {
    struct Size: Codable, Equatable { var acres: Double }
}

@Model
final class CompositeHouse {
    var kitchen: KitchenParts.Size
    var garden: GardenParts.Size

    init(kitchen: KitchenParts.Size, garden: GardenParts.Size) {
        self.kitchen = kitchen
        self.garden = garden
    }
}

extension CompositeValueTests {
    @Test("two struct types of one name get composite types of their own")
    func sameNamedStructs() throws {
        let model = try #require(NSManagedObjectModel.makeManagedObjectModel(for: [CompositeHouse.self]))
        #expect(model.compositeTypes.map(\.name).sorted() == ["Size", "Size2"])
        let url = try temporaryStoreURL()
        do {
            let container = try ModelContainer(for: CompositeHouse.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(CompositeHouse(kitchen: .init(width: 4), garden: .init(acres: 0.5)))
            try context.save()
        }
        let container = try ModelContainer(for: CompositeHouse.self, configurations: ModelConfiguration(url: url))
        let house = try #require(try ModelContext(container).fetch(FetchDescriptor<CompositeHouse>()).first)
        #expect(house.kitchen == KitchenParts.Size(width: 4) && house.garden == GardenParts.Size(acres: 0.5))
    }
}

@Model
final class TransformedPin {
    @Attribute(.transformable(by: "NSSecureUnarchiveFromData")) var spot: TripCoordinates?

    init() {}
}

extension CompositeValueTests {
    @Test("a struct given to a value transformer stays one transformable attribute")
    func transformedStruct() throws {
        let model = try #require(NSManagedObjectModel.makeManagedObjectModel(for: [TransformedPin.self]))
        let spot = try #require(model.entitiesByName["TransformedPin"]?.attributesByName["spot"])
        #expect(!(spot is NSCompositeAttributeDescription))
        #expect(spot.attributeType == .transformableAttributeType)
        #expect(spot.valueTransformerName == "NSSecureUnarchiveFromData")
        #expect(model.compositeTypes.isEmpty)
    }
}
