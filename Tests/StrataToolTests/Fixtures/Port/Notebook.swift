// swift-format-ignore-file
import CoreData

// A notebook's data layer as Xcode writes it on a Mac: generated properties and the app's own
// code. `strata port --fix` turns it into PortFixedNotebook.swift (compiled in the tests).
@objc(PortNote)
public class PortNote: NSManagedObject {
    @NSManaged public var title: String?  // shown in the list
    @NSManaged public var createdAt: Date?
    @NSManaged public var tags: NSSet?

    override init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        super.init(entity: entity, insertInto: context)
    }
}

@objc(PortTag)
public class PortTag: NSManagedObject {
    @NSManaged public var name: String?
    @NSManaged public var notes: NSSet?
}

extension PortNote {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<PortNote> {
        return NSFetchRequest<PortNote>(entityName: "PortNote")
    }

    @objc(addTagsObject:)
    @NSManaged public func addToTags(_ value: PortTag)

    @objc(addTags:)
    @NSManaged public func addToTags(_ values: NSSet)
}

enum PortNotebookQueries {
    /// Titles in Finder's order.
    static func byTitle() -> [NSSortDescriptor] {
        [
            NSSortDescriptor(
                key: #keyPath(PortNote.title), ascending: true,
                selector: #selector(NSString.localizedStandardCompare(_:)))
        ]
    }

    static func deleteAll() -> NSBatchDeleteRequest {
        NSBatchDeleteRequest(fetchRequest: PortNote.fetchRequest() as! NSFetchRequest<NSFetchRequestResult>)
    }

    static func countRequest() -> NSFetchRequest<NSFetchRequestResult> {
        let request = PortNote.fetchRequest() as! NSFetchRequest<NSFetchRequestResult>
        request.resultType = .countResultType
        return request
    }

    static func tagged(_ note: PortNote, with tag: PortTag) {
        note.tags = [tag]
        let empty: NSSet = []
        note.addToTags(empty)
    }

    static func titleExpression() -> NSExpression {
        NSExpression(forKeyPath: \PortNote.title)
    }
}
