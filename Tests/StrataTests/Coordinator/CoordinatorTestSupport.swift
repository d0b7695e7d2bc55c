import Foundation
import Testing

@testable import Strata

/// A small model of plain `NSManagedObject` entities, and temporary folders, for the
/// coordinator and store tests.
enum CoordinatorFixtures {
    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Project") {
                Attribute("name", .stringAttributeType, optional: false, defaultValue: "")
                Attribute("budget", .decimalAttributeType)
                Attribute("startedAt", .dateAttributeType)
                Attribute("code", .UUIDAttributeType)
                Attribute("site", .URIAttributeType)
                Attribute("logo", .binaryDataAttributeType)
                Relationship("tasks", to: "Task", inverse: "project", toMany: true, ordered: true, deleteRule: .cascadeDeleteRule)
                Relationship("members", to: "Member", inverse: "projects", toMany: true)
            }
            Entity("Task") {
                Attribute("title", .stringAttributeType)
                Attribute("hours", .doubleAttributeType, optional: false, defaultValue: 0.0)
                Relationship("project", to: "Project", inverse: "tasks")
            }
            Entity("Member") {
                Attribute("name", .stringAttributeType)
                Relationship("projects", to: "Project", inverse: "members", toMany: true)
            }
        }
    }

    /// A new empty folder under the temporary directory, removed by `remove`.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-coordinator-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func remove(_ url: URL) { try? FileManager.default.removeItem(at: url) }

    /// Fills a store with one project, two ordered tasks and two members, and saves.
    static func fill(_ coordinator: NSPersistentStoreCoordinator) throws {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let project = NSEntityDescription.insertNewObject(forEntityName: "Project", into: context)
            project.setValue("Apollo", forKey: "name")
            project.setValue(Decimal(string: "1234.56"), forKey: "budget")
            project.setValue(Date(timeIntervalSinceReferenceDate: 1_000_000), forKey: "startedAt")
            project.setValue(UUID(uuidString: "30084A1C-76CF-4976-8312-8E8EFCF6F510"), forKey: "code")
            project.setValue(URL(string: "https://example.org/apollo"), forKey: "site")
            project.setValue(Data([1, 2, 3]), forKey: "logo")
            for (title, hours) in [("Design", 3.5), ("Build", 8.0)] {
                let task = NSEntityDescription.insertNewObject(forEntityName: "Task", into: context)
                task.setValue(title, forKey: "title")
                task.setValue(hours, forKey: "hours")
                project.mutableOrderedSetValue(forKey: "tasks").add(task)
            }
            for name in ["Ada", "Grace"] {
                let member = NSEntityDescription.insertNewObject(forEntityName: "Member", into: context)
                member.setValue(name, forKey: "name")
                member.mutableSetValue(forKey: "projects").add(project)
            }
            try context.save()
        }
    }

    /// The project's values as plain Swift values, for comparing stores.
    static func summary(_ coordinator: NSPersistentStoreCoordinator) throws -> [String] {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            let projects = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Project"))
            return projects.map { project in
                let tasks = (project.value(forKey: "tasks") as? NSOrderedSet)?.array.compactMap {
                    ($0 as? NSManagedObject)?.value(forKey: "title") as? String
                }
                let members = (project.value(forKey: "members") as? NSSet)?.allObjects.compactMap {
                    ($0 as? NSManagedObject)?.value(forKey: "name") as? String
                }
                return [
                    project.value(forKey: "name") as? String ?? "nil",
                    "\(project.value(forKey: "budget") as? Decimal ?? 0)",
                    "\((project.value(forKey: "startedAt") as? Date)?.timeIntervalSinceReferenceDate ?? 0)",
                    (project.value(forKey: "code") as? UUID)?.uuidString ?? "nil",
                    (project.value(forKey: "site") as? URL)?.absoluteString ?? "nil",
                    "\((project.value(forKey: "logo") as? Data).map(Array.init) ?? [])",
                    (tasks ?? []).joined(separator: ","),
                    (members ?? []).sorted().joined(separator: ","),
                ].joined(separator: "|")
            }
        }
    }
}
