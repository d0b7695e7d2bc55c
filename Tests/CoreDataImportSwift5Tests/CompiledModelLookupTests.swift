import CoreData
import Testing

/// COMPAT 11: the model found as Apple apps find theirs, through the plugin's compiled form.
@Suite("COMPAT 11: models found by Bundle lookups")
struct ImportCompiledModelLookupTests {
    @Test("Bundle.main and Bundle.module answer .momd, and the model loads from it")
    func lookups() throws {
        let main = try #require(Bundle.main.url(forResource: "NotesSwift5", withExtension: "momd"))
        let resource = try #require(ImportTarget.resourceModelURL())
        let fromMain = try #require(NSManagedObjectModel(contentsOf: main))
        let fromResource = try #require(NSManagedObjectModel(contentsOf: resource))
        #expect(fromMain.entityVersionHashesByName == fromResource.entityVersionHashesByName)
        #expect(fromMain.entitiesByName["NoteEntity"]?.managedObjectClassName == String(reflecting: NoteEntity.self))
    }
}
