import CloudKit
import CoreData
import Foundation
import StrataSyncProtocol
import SyncTestSupport
import Testing

extension SyncClientTests {
    /// `initializeCloudKitSchema` tells the sync server which fields to index (issue 35): the
    /// attributes the model indexes, as CloudKit's queryable and sortable fields.
    @Suite(.enabled(if: TestPostgres.isAvailable, "PostgreSQL is absent")) struct SchemaIndexTests {
        private let scratch = Scratch()

        /// Notes: `title` indexed by its flag, `rank` by a fetch index, `body` not at all, and a
        /// subentity's indexed attribute, which lands on the root's record type.
        private func model() throws -> NSManagedObjectModel {
            let model = NSManagedObjectModel {
                Entity("Note") {
                    Attribute("title", .stringAttributeType)
                    Attribute("rank", .integer64AttributeType)
                    Attribute("body", .stringAttributeType)
                }
            }
            let note = try #require(model.entitiesByName["Note"])
            try #require(note.attributesByName["title"]).isIndexed = true
            let rank = try #require(note.attributesByName["rank"])
            note.indexes = [
                NSFetchIndexDescription(
                    name: "byRank", elements: [NSFetchIndexElementDescription(property: rank, collationType: .binary)])
            ]
            let checklist = NSEntityDescription()
            checklist.name = "Checklist"
            let due = NSAttributeDescription()
            due.name = "due"
            due.attributeType = .dateAttributeType
            due.isIndexed = true
            checklist.properties = [due]
            note.subentities = [checklist]
            model.entities.append(checklist)
            return model
        }

        @Test func initializeCloudKitSchemaDeclaresTheIndexedAttributes() async throws {
            let backend = try await Backend.start()
            defer { Task { await backend.stop() } }
            let container = NSPersistentCloudKitContainer(name: "Notes", managedObjectModel: try model())
            let description = NSPersistentStoreDescription(url: scratch.file("Notes.sqlite"))
            let options = NSPersistentCloudKitContainerOptions(containerIdentifier: "iCloud.org.strata.Notes")
            options.serverURL = backend.url
            options.useStaticToken(backend.token)
            options.syncsAutomatically = false
            description.cloudKitContainerOptions = options
            container.persistentStoreDescriptions = [description]
            var loadError: (any Error)?
            container.loadPersistentStores { _, error in loadError = error }
            if let loadError { throw loadError }

            // A dry run sends nothing.
            try container.initializeCloudKitSchema(options: [.dryRun])
            let client = SyncTestClient(base: backend.url, token: backend.token)
            #expect(try await client.send("GET", SyncPaths.schema).decode(SchemaIndexes.self).indexes.isEmpty)

            // Called as Apple's is: synchronously, from a thread of the app's.
            let failure: String? = await withCheckedContinuation { done in
                Thread {
                    do {
                        try container.initializeCloudKitSchema(options: [])
                        done.resume(returning: nil)
                    } catch {
                        done.resume(returning: "\(error)")
                    }
                }.start()
            }
            #expect(failure == nil)
            let indexes = try await client.send("GET", SyncPaths.schema).decode(SchemaIndexes.self).indexes
            #expect(
                indexes.map { "\($0.recordType).\($0.field):\($0.kind.rawValue):\($0.queryable):\($0.sortable)" } == [
                    "CD_Note.CD_due:date:true:true", "CD_Note.CD_rank:int:true:true", "CD_Note.CD_title:string:true:true",
                ])
        }
    }
}
