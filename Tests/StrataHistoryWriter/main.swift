import Foundation
import Strata

// A second process for the persistent history tests: it opens a store with history tracking
// (the model of `HistoryTests.model()`) and saves items into it, as another app would.
//
//   strata-history-writer <store> <count>   saves <count> items, one save each, then exits
//   strata-history-writer <store> loop      saves items of 20 objects each until killed

func model() -> NSManagedObjectModel {
    let model = NSManagedObjectModel {
        Entity("HistItem") {
            Attribute("title", .stringAttributeType)
            Attribute("rank", .integer64AttributeType, optional: false, defaultValue: Int64(0))
            Attribute("note", .stringAttributeType)
            Attribute("due", .dateAttributeType)
            Relationship("tags", to: "HistTag", inverse: "items", toMany: true)
            Relationship("list", to: "HistList", inverse: "items")
        }
        Entity("HistTag") {
            Attribute("name", .stringAttributeType)
            Relationship("items", to: "HistItem", inverse: "tags", toMany: true)
        }
        Entity("HistList") {
            Attribute("name", .stringAttributeType)
            Relationship("items", to: "HistItem", inverse: "list", toMany: true, deleteRule: .cascadeDeleteRule)
        }
    }
    for name in ["title", "due"] {
        (model.entitiesByName["HistItem"]?.attributesByName[name])?.preservesValueInHistoryOnDeletion = true
    }
    return model
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: strata-history-writer <store> <count>|loop\n".utf8))
    exit(2)
}
do {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
    try coordinator.addPersistentStore(
        ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: arguments[1]),
        options: [NSPersistentHistoryTrackingKey: true])
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    context.transactionAuthor = "writer"
    let loop = arguments[2] == "loop"
    let count = Int(arguments[2]) ?? 0
    var saved = 0
    while loop || saved < count {
        try context.performAndWait {
            for index in 0..<(loop ? 20 : 1) {
                let item = NSEntityDescription.insertNewObject(forEntityName: "HistItem", into: context)
                item.setValue("from another process \(saved).\(index)", forKey: "title")
            }
            try context.save()
            context.reset()
        }
        saved += 1
        if loop { print(saved) }
    }
} catch {
    FileHandle.standardError.write(Data("strata-history-writer: \(error)\n".utf8))
    exit(1)
}
