import Foundation
import SwiftData
import SyncTestSupport
import Testing

/// A `Codable` struct: a composite attribute, which travels as one field.
struct SyncedPlace: Codable, Equatable {
    var city: String
    var country: String?
}

@Model
final class SyncedTrip {
    @Attribute(.unique) var code: String
    var name: String
    var nights: Int
    var place = SyncedPlace(city: "", country: nil)
    @Relationship(deleteRule: .cascade, inverse: \SyncedStop.trip) var stops: [SyncedStop] = []

    init(code: String, name: String, nights: Int) {
        self.code = code
        self.name = name
        self.nights = nights
    }
}

@Model
class SyncedStop {
    var title: String
    var trip: SyncedTrip?

    init(title: String) { self.title = title }
}

/// A subclass: its rows mirror as the root entity's record type, with the subentity recorded.
@Model
final class SyncedHotelStop: SyncedStop {
    var hotel: String

    init(title: String, hotel: String) {
        self.hotel = hotel
        super.init(title: title)
    }
}

extension SyncClientTests {
    /// `ModelConfiguration(cloudKitDatabase:)` (issue 36): two devices' SwiftData stores
    /// mirrored through a real sync server; every write checked against what should be there.
    @Suite(.enabled(if: TestPostgres.isAvailable, "PostgreSQL is absent")) struct SwiftDataSyncTests {
        private let scratch = Scratch()

        private func device(_ name: String, _ backend: Backend) throws -> ModelContainer {
            let token = backend.token
            let database = ModelConfiguration.CloudKitDatabase.private(
                "iCloud.org.strata.Trips", serverURL: backend.url, tokenProvider: { token })
            return try ModelContainer(
                for: SyncedTrip.self, SyncedHotelStop.self,
                configurations: ModelConfiguration(url: scratch.file("\(name).store"), cloudKitDatabase: database))
        }

        /// What a store holds: trips by code, with their names, nights and stops (a hotel
        /// stop as `title@hotel`, read as its own class).
        private func contents(_ container: ModelContainer) throws -> [String: String] {
            let trips = try ModelContext(container).fetch(FetchDescriptor<SyncedTrip>())
            return Dictionary(
                uniqueKeysWithValues: trips.map { trip in
                    (
                        trip.code,
                        "\(trip.name) \(trip.nights) \(trip.place.city)/\(trip.place.country ?? "-") "
                            + "\(trip.stops.map(Self.describe).sorted())"
                    )
                })
        }

        private static func describe(_ stop: SyncedStop) -> String {
            guard let hotel = stop as? SyncedHotelStop else { return stop.title }
            return "\(hotel.title)@\(hotel.hotel)"
        }

        @Test func twoDevicesAgreeWithWhatWasWritten() async throws {
            let backend = try await Backend.start()
            defer { Task { await backend.stop() } }
            let phone = try device("phone", backend)
            let laptop = try device("laptop", backend)

            var expected: [String: String] = [:]
            let context = ModelContext(phone)
            for number in 1...5 {
                let trip = SyncedTrip(code: "T\(number)", name: "Trip \(number)", nights: number)
                trip.place = SyncedPlace(city: "City \(number)", country: number.isMultiple(of: 2) ? "NO" : nil)
                // The first stop of each trip is a hotel stop.
                trip.stops = (1...number).map { index in
                    index == 1
                        ? SyncedHotelStop(title: "stop \(number).1", hotel: "hotel \(number)")
                        : SyncedStop(title: "stop \(number).\(index)")
                }
                context.insert(trip)
                let stops = (1...number).map { $0 == 1 ? "stop \(number).1@hotel \(number)" : "stop \(number).\($0)" }
                let country = number.isMultiple(of: 2) ? "NO" : "-"
                expected["T\(number)"] = "Trip \(number) \(number) City \(number)/\(country) \(stops.sorted())"
            }
            try context.save()
            try await phone.syncNow()
            try await laptop.syncNow()
            #expect(try contents(laptop) == expected)

            // The laptop renames one trip and deletes another (with its stops).
            let other = ModelContext(laptop)
            let trips = try other.fetch(FetchDescriptor<SyncedTrip>(sortBy: [SortDescriptor(\.code)]))
            trips[1].name = "Renamed"
            trips[1].place.city = "Bergen"
            trips[0].place.country = "SE"
            other.delete(trips[2])
            try other.save()
            expected["T1"] = "Trip 1 1 City 1/SE [\"stop 1.1@hotel 1\"]"
            expected["T2"] = "Renamed 2 Bergen/NO [\"stop 2.1@hotel 2\", \"stop 2.2\"]"
            expected["T3"] = nil
            try await laptop.syncNow()
            try await phone.syncNow()
            #expect(try contents(phone) == expected)
            #expect(try contents(laptop) == expected)
            let stops = try ModelContext(phone).fetchCount(FetchDescriptor<SyncedStop>())
            #expect(stops == 12, "the deleted trip's stops went with it")
            #expect(try ModelContext(laptop).fetchCount(FetchDescriptor<SyncedHotelStop>()) == 4)
        }
    }
}
