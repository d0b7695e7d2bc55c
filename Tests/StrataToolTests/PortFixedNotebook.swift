// swift-format-ignore-file
#if !canImport(Darwin)  // Linux: this file without this line and the last is `strata port --fix`'s expected output.
import CoreData

// A notebook's data layer as Xcode writes it on a Mac: generated properties and the app's own
// code. `strata port --fix` turns it into PortFixedNotebook.swift (compiled in the tests).
public class PortNote: NSManagedObject {
    @Managed public var title: String?  // shown in the list
    @Managed public var createdAt: Date?
    @Managed public var tags: NSSet?

    required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        super.init(entity: entity, insertInto: context)
    }
}

public class PortTag: NSManagedObject {
    @Managed public var name: String?
    @Managed public var notes: NSSet?
}

extension PortNote {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<PortNote> {
        return NSFetchRequest<PortNote>(entityName: "PortNote")
    }

    public func addToTags(_ value: PortTag) {
        mutableSetValue(forKey: "tags").add(value)
    }

    public func addToTags(_ values: NSSet) {
        mutableSetValue(forKey: "tags").addObjects(from: values.allObjects)
    }
}

enum PortNotebookQueries {
    /// Titles in Finder's order.
    static func byTitle() -> [NSSortDescriptor] {
        [
            NSSortDescriptor(
                key: "title", ascending: true,
                selector: Selector("localizedStandardCompare:"))
        ]
    }

    static func deleteAll() -> NSBatchDeleteRequest {
        NSBatchDeleteRequest(fetchRequest: PortNote.fetchRequest())
    }

    static func countRequest() -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "PortNote")
        request.resultType = .countResultType
        return request
    }

    static func tagged(_ note: PortNote, with tag: PortTag) {
        note.tags = NSSet(array: [tag])
        let empty: NSSet = NSSet()
        note.addToTags(empty)
    }

    static func titleExpression() -> NSExpression {
        NSExpression(forKeyPath: "title")
    }
}
#endif
