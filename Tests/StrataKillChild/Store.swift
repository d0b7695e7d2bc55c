import Foundation
import Strata

/// A store opened by the child.
struct OpenStore {
    let coordinator: NSPersistentStoreCoordinator
    let store: NSPersistentStore

    init(_ url: URL, model: NSManagedObjectModel, history: Bool, migrate: Bool = false) throws {
        var options: [AnyHashable: Any] = [:]
        if history {
            options[NSPersistentHistoryTrackingKey] = true as NSNumber
            options[StrataPersistentHistoryValuesKey] = true as NSNumber
        }
        if migrate {
            options[NSMigratePersistentStoresAutomaticallyOption] = true as NSNumber
            options[NSInferMappingModelAutomaticallyOption] = true as NSNumber
        }
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
    }

    func context() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    func close() throws { try coordinator.remove(store) }

    // MARK: The lists-tags-items graph

    /// Inserts the graph's objects (their lists and tags may be in the store already) and
    /// saves once.
    func save(_ graph: Graph, author: String? = nil) throws {
        let context = self.context()
        context.transactionAuthor = author
        try context.performAndWait {
            try Self.insert(graph, into: context)
            try context.save()
            context.reset()
        }
    }

    static func byKey(_ entity: String, in context: NSManagedObjectContext) throws -> [Int64: NSManagedObject] {
        let objects = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))
        var byKey: [Int64: NSManagedObject] = [:]
        for object in objects { byKey[(object.value(forKey: "key") as? NSNumber)?.int64Value ?? -1] = object }
        return byKey
    }

    static func insert(_ graph: Graph, into context: NSManagedObjectContext) throws {
        var lists = try byKey("KList", in: context)
        var tags = try byKey("KTag", in: context)
        for (key, name) in graph.lists.sorted(by: { $0.key < $1.key }) {
            let list = NSEntityDescription.insertNewObject(forEntityName: "KList", into: context)
            list.setValue(key, forKey: "key")
            list.setValue(name, forKey: "name")
            lists[key] = list
        }
        for (key, name) in graph.tags.sorted(by: { $0.key < $1.key }) {
            let tag = NSEntityDescription.insertNewObject(forEntityName: "KTag", into: context)
            tag.setValue(key, forKey: "key")
            tag.setValue(name, forKey: "name")
            tags[key] = tag
        }
        for (key, item) in graph.items.sorted(by: { $0.key < $1.key }) {
            let object = NSEntityDescription.insertNewObject(forEntityName: "KItem", into: context)
            object.setValue(key, forKey: "key")
            object.setValue(item.title, forKey: "title")
            object.setValue(item.rank, forKey: "rank")
            object.setValue(item.note, forKey: "note")
            if let list = item.list {
                guard let related = lists[list] else { throw ChildFailure("no list \(list) for item \(key)") }
                object.setValue(related, forKey: "list")
            }
            let set = object.mutableSetValue(forKey: "tags")
            for tag in item.tags.sorted() {
                guard let related = tags[tag] else { throw ChildFailure("no tag \(tag) for item \(key)") }
                set.add(related)
            }
        }
    }

    /// Batch-inserts items without relationships.
    func batchInsert(_ graph: Graph) throws {
        let rows: [[String: Any]] = graph.items.sorted(by: { $0.key < $1.key }).map { key, item in
            ["key": key, "title": item.title, "rank": item.rank, "note": item.note]
        }
        let context = self.context()
        try context.performAndWait {
            let request = NSBatchInsertRequest(entityName: "KItem", objects: rows)
            _ = try context.execute(request)
        }
    }

    /// The canonical dump of the graph the store holds (`Graph.lines`).
    func graphLines() throws -> [String] {
        let context = self.context()
        return try context.performAndWait {
            var lines: [String] = []
            for list in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "KList")) {
                lines.append("L \(Self.key(list)) \(list.value(forKey: "name") as? String ?? "nil")")
            }
            for tag in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "KTag")) {
                lines.append("T \(Self.key(tag)) \(tag.value(forKey: "name") as? String ?? "nil")")
            }
            let request = NSFetchRequest<NSManagedObject>(entityName: "KItem")
            request.relationshipKeyPathsForPrefetching = ["list", "tags"]
            for object in try context.fetch(request) {
                let item = Graph.Item(
                    title: object.value(forKey: "title") as? String ?? "nil",
                    rank: (object.value(forKey: "rank") as? NSNumber)?.int64Value ?? -1,
                    note: object.value(forKey: "note") as? String ?? "nil",
                    list: (object.value(forKey: "list") as? NSManagedObject).map(Self.key),
                    tags: Set(Self.members(object.value(forKey: "tags")).map(Self.key)))
                lines.append(Graph.line(Self.key(object), item))
            }
            return lines.sorted()
        }
    }

    /// The objects of a to-many value, as a set of either kind.
    static func members(_ value: Any?) -> [NSManagedObject] {
        if let set = value as? Set<NSManagedObject> { return Array(set) }
        if let set = value as? NSSet { return set.allObjects.compactMap { $0 as? NSManagedObject } }
        return []
    }

    static func key(_ object: NSManagedObject) -> Int64 { (object.value(forKey: "key") as? NSNumber)?.int64Value ?? -1 }

    // MARK: The migrations' items

    func saveMigrationItems(_ items: ArraySlice<(key: Int64, title: String, count: Int16, note: String)>) throws {
        let context = self.context()
        try context.performAndWait {
            for item in items {
                let object = NSEntityDescription.insertNewObject(forEntityName: "MItem", into: context)
                object.setValue(item.key, forKey: "key")
                object.setValue(item.title, forKey: "title")
                object.setValue(item.count, forKey: "count")
                object.setValue(item.note, forKey: "note")
            }
            try context.save()
            context.reset()
        }
    }

    /// The canonical dump of a migration's store, in any of its versions.
    func migrationLines() throws -> [String] {
        let context = self.context()
        let attributes = coordinator.managedObjectModel.entitiesByName["MItem"]?.attributesByName ?? [:]
        return try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "MItem")).map { object in
                let text = object.value(forKey: attributes["heading"] == nil ? "title" : "heading") as? String ?? "nil"
                let count = (object.value(forKey: "count") as? NSNumber)?.int64Value ?? -1
                var line = "M \(Self.key(object)) \(text) \(count) \(object.value(forKey: "note") as? String ?? "nil")"
                if attributes["rating"] != nil {
                    line += " rating=\((object.value(forKey: "rating") as? NSNumber)?.intValue ?? -1)"
                }
                return line
            }.sorted()
        }
    }

    // MARK: History

    /// Transactions, and KItem inserts and deletes, in the store's history.
    func historySummary() throws -> String {
        let context = self.context()
        return try context.performAndWait {
            let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
            let result = try context.execute(request) as? NSPersistentHistoryResult
            let transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
            var inserts = 0
            var deletes = 0
            for transaction in transactions {
                for change in transaction.changes ?? [] where change.changedObjectID.entity.name == "KItem" {
                    if change.changeType == .insert { inserts += 1 }
                    if change.changeType == .delete { deletes += 1 }
                }
            }
            return "history: \(transactions.count) transactions, \(inserts) item inserts, \(deletes) item deletes"
        }
    }
}
