import Foundation
import Strata
import Testing

/// `NSPersistentContainer(name:)` finds the model the plugin processed in this target, with
/// no resource declared in the package manifest, and the generated classes are what fetches
/// return, as in an app built with Xcode.
@Suite("Persistent container")
struct PersistentContainerTests {
    @Test("init(name:) finds the target's model by name")
    func findsTheModelByName() {
        let container = NSPersistentContainer(name: "Model")
        #expect(
            Set(container.managedObjectModel.entitiesByName.keys) == ["Book", "Gadget", "Item", "Note", "Step", "Tag", "Todo"])
    }

    @Test("a missing model is reported by loadPersistentStores, not a crash")
    func missingModelIsAnError() {
        let container = NSPersistentContainer(name: "NoSuchModel")
        container.persistentStoreDescriptions.forEach { $0.type = NSInMemoryStoreType }
        var failure: NSError?
        container.loadPersistentStores { _, error in failure = error as NSError? }
        #expect(failure?.domain == NSCocoaErrorDomain)
        #expect(failure?.localizedDescription.contains("NoSuchModel") == true)
    }

    @Test("generated classes are saved and fetched through the container")
    func generatedClassesRoundTrip() async throws {
        let container = NSPersistentContainer(name: "Model")
        let description = NSPersistentStoreDescription()
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        #expect(failure == nil)

        try await container.performBackgroundTask { context in
            let tag = Tag(context: context)
            tag.name = "home"
            let step = Step(context: context)
            step.title = "first"
            try context.save()
        }
        let context = container.newBackgroundContext()
        let (tags, steps) = try await context.perform {
            (try context.fetch(Tag.fetchRequest()), try context.fetch(Step.fetchRequest()))
        }
        #expect(tags.map(\.name) == ["home"])
        #expect(steps.map(\.title) == ["first"])
    }

    @Test("the default store lives in the XDG data directory")
    func defaultDirectory() {
        let url = NSPersistentContainer.defaultDirectoryURL()
        let base =
            ProcessInfo.processInfo.environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share").path
        #expect(url.deletingLastPathComponent().standardizedFileURL.path == URL(fileURLWithPath: base).standardizedFileURL.path)
        #expect(url.lastPathComponent == ProcessInfo.processInfo.processName)
        let container = NSPersistentContainer(name: "Model")
        #expect(container.persistentStoreDescriptions.first?.url?.lastPathComponent == "Model.sqlite")
        #expect(container.persistentStoreDescriptions.first?.url?.deletingLastPathComponent().path == url.path)
    }
}
