import CoreData
import Foundation
import SwiftData
import Testing

// A Codable struct in a model, in the style of Apple's SwiftData documentation; compiled in
// Swift 6 (SwiftDataTests) and in Swift 5 language mode (SwiftDataSwift5Tests).

struct ContactAddress: Codable, Equatable {
    var street: String
    var city: String
    var postalCode: String?
}

@Model
final class Contact {
    var name: String
    var address: ContactAddress?

    init(name: String, address: ContactAddress? = nil) {
        self.name = name
        self.address = address
    }
}

@Suite("A Codable struct in an Apple-style model")
struct CodableStructTests {
    @Test("stored as a composite attribute, queried by #Predicate, read back whole")
    func contactAddresses() throws {
        let url = try temporaryStoreURL()
        do {
            let container = try ModelContainer(for: Contact.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(Contact(name: "Ada", address: ContactAddress(street: "1 Rue", city: "Paris", postalCode: "75001")))
            context.insert(Contact(name: "Bo", address: ContactAddress(street: "2 Gate", city: "Oslo")))
            context.insert(Contact(name: "Cy"))
            try context.save()
        }
        let container = try ModelContainer(for: Contact.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let parisians = try context.fetch(FetchDescriptor<Contact>(predicate: #Predicate { $0.address?.city == "Paris" }))
        #expect(parisians.map(\.name) == ["Ada"])
        #expect(parisians.first?.address == ContactAddress(street: "1 Rue", city: "Paris", postalCode: "75001"))
        let all = try context.fetch(FetchDescriptor<Contact>(sortBy: [SortDescriptor(\.name)]))
        #expect(all.map(\.address?.city) == ["Paris", "Oslo", nil])
        #expect(all.map(\.address?.postalCode) == ["75001", nil, nil])

        let model = try #require(NSManagedObjectModel.makeManagedObjectModel(for: [Contact.self]))
        let address = try #require(model.entitiesByName["Contact"]?.attributesByName["address"])
        #expect(address.attributeType == .compositeAttributeType)
        #expect((address as? NSCompositeAttributeDescription)?.elements.map(\.name) == ["street", "city", "postalCode"])
    }
}
