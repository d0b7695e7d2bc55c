import CoreData
import Foundation
import Testing
import TodoKit

@Suite("LocationDAO")
struct LocationDAOTests {
    @Test("create, find, update and delete a location", arguments: StoreKind.allCases)
    func lifecycle(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let place = LocationModel(latitude: 46.5197, longitude: 6.6323, altitude: 495, placeName: "Lausanne")
        #expect(try await store.locationDAO.create(place) == place)
        #expect(try await store.locationDAO.find(id: place.id) == place)
        var moved = place
        moved.altitude = nil
        moved.placeName = "Lausanne gare"
        #expect(try await store.locationDAO.update(moved) == moved)
        #expect(try await store.locationDAO.find(id: place.id) == moved)
        try await store.locationDAO.delete(id: place.id)
        #expect(try await store.locationDAO.find(id: place.id) == nil)
        await #expect(throws: TodoKitError.locationNotFound(place.id)) { try await store.locationDAO.delete(id: place.id) }
    }

    @Test("deleting a location leaves its to-dos, without one", arguments: StoreKind.allCases)
    func deleteNullifies(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let place = LocationModel(latitude: 0, longitude: 0, placeName: "Null Island")
        let todo = try await store.todoDAO.create(title: "Visit", location: place)
        try await store.locationDAO.delete(id: place.id)
        #expect(try await store.todoDAO.find(id: todo.id)?.location == nil)
    }

    @Test("find(samePlaceAs:) matches every value, absent ones included", arguments: StoreKind.allCases)
    func samePlace(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let named = try await store.locationDAO.create(LocationModel(latitude: 1.5, longitude: -2.25, placeName: "A"))
        let bare = try await store.locationDAO.create(LocationModel(latitude: 1.5, longitude: -2.25))
        let probe = LocationModel(latitude: 1.5, longitude: -2.25, placeName: "A")
        #expect(try await store.locationDAO.find(samePlaceAs: probe) == named)
        #expect(try await store.locationDAO.find(samePlaceAs: LocationModel(latitude: 1.5, longitude: -2.25)) == bare)
        #expect(try await store.locationDAO.find(samePlaceAs: LocationModel(latitude: 1.5, longitude: -2.25, altitude: 3)) == nil)
    }

    @Test("findMany sorts by place name ignoring case, and searches it ignoring accents", arguments: StoreKind.allCases)
    func findMany(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        for name in ["Zürich", "Bern", "zug"] {
            _ = try await store.locationDAO.create(LocationModel(latitude: 47, longitude: 8, placeName: name))
        }
        // caseInsensitiveCompare: compares characters after case folding, so "u" before "ü".
        #expect(try await store.locationDAO.findMany().map(\.placeName) == ["Bern", "zug", "Zürich"])
        #expect(try await store.locationDAO.findMany(search: "zur").map(\.placeName) == ["Zürich"])
        #expect(try await store.locationDAO.findMany(page: 2, pageSize: 2).map(\.placeName) == ["Zürich"])
    }

    @Test("the model file's bounds reject an impossible latitude at save", arguments: StoreKind.allCases)
    func modelValidation(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let error = try await #require(throws: NSError.self) {
            try await store.locationDAO.create(LocationModel(latitude: 91, longitude: 0))
        }
        // The model's maximum of 90: Core Data's validation error, naming the attribute.
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSValidationNumberTooLargeError)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "latitude")
        #expect(try await store.locationDAO.findMany().isEmpty)
    }
}
