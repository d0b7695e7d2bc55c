import CoreData
import Foundation
import SwiftData

// SwiftData on Linux: Apple-style models and contexts over Strata, then the same file opened
// through Core Data. `swift run swiftdata-tour` (README, "SwiftData on Linux").

@Model
final class Trip {
    @Attribute(.unique) var name: String
    var startDate: Date
    @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []

    init(name: String, startDate: Date) {
        self.name = name
        self.startDate = startDate
    }
}

// A Codable struct: a composite attribute, each of its values a column of the stop's table.
struct Place: Codable {
    var city: String
    var country: String
}

@Model
class Stop {
    var title: String
    var nights: Int
    var place: Place?
    var trip: Trip?

    init(title: String, nights: Int) {
        self.title = title
        self.nights = nights
    }
}

// A subclass: its entity is a subentity of Stop's; fetching stops returns hotel stays too.
@Model
final class HotelStay: Stop {
    var hotel: String

    init(title: String, nights: Int, hotel: String) {
        self.hotel = hotel
        super.init(title: title, nights: nights)
    }
}

@ModelActor
actor Planner {
    func addStop(_ title: String, nights: Int, to tripName: String) throws {
        guard let trip = try modelContext.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == tripName })).first
        else { return }
        trip.stops.append(Stop(title: title, nights: nights))
        try modelContext.save()
    }
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swiftdata-tour-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
let url = folder.appendingPathComponent("default.store")
defer { try? FileManager.default.removeItem(at: folder) }

let container = try ModelContainer(for: Trip.self, HotelStay.self, configurations: ModelConfiguration(url: url))
let context = ModelContext(container)
let summer = Trip(name: "Summer", startDate: Date(timeIntervalSinceReferenceDate: 804_556_800))
summer.stops = [HotelStay(title: "Lisbon", nights: 3, hotel: "Casa do Rio"), Stop(title: "Porto", nights: 2)]
summer.stops[0].place = Place(city: "Lisbon", country: "PT")
summer.stops[1].place = Place(city: "Porto", country: "PT")
context.insert(summer)
try context.save()
print("saved:", summer.name, "with", summer.stops.count, "stops; id", summer.persistentModelID.entityName)

try await Planner(modelContainer: container).addStop("Coimbra", nights: 1, to: "Summer")

let long = try ModelContext(container).fetch(
    FetchDescriptor<Stop>(predicate: #Predicate { $0.nights >= 2 }, sortBy: [SortDescriptor(\.title)]))
print("stops of two nights or more:", long.map(\.title))
print("all stops:", try ModelContext(container).fetchCount(FetchDescriptor<Stop>()))
let stays = try ModelContext(container).fetch(FetchDescriptor<Stop>(predicate: #Predicate { $0 is HotelStay }))
print("hotel stays:", stays.compactMap { ($0 as? HotelStay).map { "\($0.title) at \($0.hotel)" } })
let inPortugal = try ModelContext(container).fetch(
    FetchDescriptor<Stop>(predicate: #Predicate { $0.place?.country == "PT" }, sortBy: [SortDescriptor(\.title)]))
print("stops in Portugal:", inPortugal.compactMap { $0.place.map { "\($0.city), \($0.country)" } })

// The same file through Core Data: the entities SwiftData wrote.
let model = NSManagedObjectModel.makeManagedObjectModel(for: [Trip.self, HotelStay.self]) ?? NSManagedObjectModel()
let coreData = NSPersistentContainer(name: "Tour", managedObjectModel: model)
coreData.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
coreData.loadPersistentStores { _, error in if let error { print("load failed:", error) } }
let request = NSFetchRequest<NSManagedObject>(entityName: "Stop")
request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
let rows = try coreData.viewContext.fetch(request)
print(
    "through NSPersistentContainer:",
    rows.map { "\($0.value(forKey: "title") ?? "") (\($0.value(forKey: "nights") ?? ""), \($0.entity.name ?? ""))" })
print("place.city through Core Data:", rows.map { $0.value(forKeyPath: "place.city") as? String ?? "-" })
