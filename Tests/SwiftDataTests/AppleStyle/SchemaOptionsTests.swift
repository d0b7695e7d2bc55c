import CoreData
import Foundation
import SwiftData
import Testing

// A model without `final` (as many apps write them), and every option of @Attribute and
// @Relationship, checked against the Core Data model they make.

@Model
class Photo {
    @Attribute(.externalStorage) var image: Data
    @Attribute(.preserveValueOnDeletion) var caption: String
    @Attribute(.ephemeral) var isLoading: Bool = false
    @Attribute(originalName: "taken_at", hashModifier: "v2") var takenAt: Date
    @Attribute(.transformable(by: "NSSecureUnarchiveFromData")) var metadata: Data?
    @Attribute(.spotlight, .allowsCloudEncryption) var notes: String = ""
    @Relationship(deleteRule: .deny, minimumModelCount: 1, maximumModelCount: 3, originalName: "owners_v1")
    var albums: [Album] = []

    init(image: Data, caption: String, takenAt: Date) {
        self.image = image
        self.caption = caption
        self.takenAt = takenAt
    }
}

@Model
class Album {
    var title: String
    var photos: [Photo] = []

    init(title: String) { self.title = title }
}

@Suite("@Attribute and @Relationship options")
struct SchemaOptionsTests {
    @Test("each option becomes the Core Data setting Apple documents for it")
    func options() throws {
        let model = try #require(NSManagedObjectModel.makeManagedObjectModel(for: [Photo.self]))
        let photo = try #require(model.entitiesByName["Photo"])
        let attributes = photo.attributesByName
        #expect(attributes["image"]?.allowsExternalBinaryDataStorage == true)
        #expect(attributes["caption"]?.preservesValueInHistoryOnDeletion == true)
        #expect(attributes["isLoading"]?.isTransient == true)
        #expect(attributes["takenAt"]?.renamingIdentifier == "taken_at")
        #expect(attributes["takenAt"]?.versionHashModifier == "v2")
        #expect(attributes["metadata"]?.attributeType == .transformableAttributeType)
        #expect(attributes["metadata"]?.valueTransformerName == "NSSecureUnarchiveFromData")
        #expect(attributes["notes"]?.isIndexedBySpotlight == true)
        #expect(attributes["notes"]?.allowsCloudEncryption == true)
        let albums = try #require(photo.relationshipsByName["albums"])
        #expect(albums.deleteRule == .denyDeleteRule)
        #expect(albums.minCount == 1)
        #expect(albums.maxCount == 3)
        #expect(albums.renamingIdentifier == "owners_v1")
        #expect(albums.inverseRelationship?.name == "photos", "a many-to-many inverse, the only one back")
        #expect(model.entitiesByName["Album"]?.relationshipsByName["photos"]?.isToMany == true)
    }

    @Test("a non-final model class inserts, saves and fetches; an ephemeral value is not saved")
    func nonFinalClass() throws {
        let container = try ModelContainer(for: Photo.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let photo = Photo(image: Data([1, 2, 3]), caption: "Harbour", takenAt: Date(timeIntervalSinceReferenceDate: 9))
        photo.isLoading = true
        let album = Album(title: "Trips")
        photo.albums = [album]
        context.insert(photo)
        try context.save()
        let fetched = try ModelContext(container).fetch(FetchDescriptor<Photo>())
        #expect(fetched.map(\.caption) == ["Harbour"])
        #expect(fetched.map(\.image) == [Data([1, 2, 3])])
        #expect(fetched.map(\.isLoading) == [false], "an ephemeral (transient) value is not saved")
        #expect(fetched.first?.albums.map(\.title) == ["Trips"])
    }
}

/// A model made `Codable` by hand, as apps do to export their data: its relationships stay
/// relationships.
@Model
final class Recipe: Codable {
    var name: String
    var ingredients: [Ingredient] = []
    var favourite: Ingredient?

    init(name: String) { self.name = name }

    enum CodingKeys: String, CodingKey { case name }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.name = try container.decode(String.self, forKey: .name)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
    }
}

@Model
final class Ingredient: Codable {
    var name: String
    var recipe: Recipe?

    init(name: String) { self.name = name }

    enum CodingKeys: String, CodingKey { case name }

    required init(from decoder: any Decoder) throws {
        self.name = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .name)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
    }
}

@Suite("Codable model classes")
struct CodableModelTests {
    @Test("a Codable model's relationships are relationships; it still encodes")
    func codableModels() throws {
        let model = try #require(NSManagedObjectModel.makeManagedObjectModel(for: [Recipe.self]))
        #expect(model.entitiesByName["Recipe"]?.relationshipsByName.keys.sorted() == ["favourite", "ingredients"])
        let container = try ModelContainer(for: Recipe.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let soup = Recipe(name: "Soup")
        let leek = Ingredient(name: "Leek")
        soup.ingredients = [leek, Ingredient(name: "Potato")]
        soup.favourite = leek
        context.insert(soup)
        try context.save()
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Recipe>()).first)
        #expect(fetched.ingredients.map(\.name).sorted() == ["Leek", "Potato"])
        #expect(fetched.favourite?.name == "Leek")
        #expect(String(decoding: try JSONEncoder().encode(fetched), as: UTF8.self) == #"{"name":"Soup"}"#)
    }
}
