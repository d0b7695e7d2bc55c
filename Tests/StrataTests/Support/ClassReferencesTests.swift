import Foundation
import Testing

@testable import Strata

/// `ClassReferences` reads class instances out of `Any` containers in place: it must find an
/// instance however it was boxed, keep it alive as a strong reference, and refuse every value
/// of another type (which it would otherwise read as garbage).
@Suite struct ClassReferencesTests {
    private static let entity: NSEntityDescription = {
        let model = NSManagedObjectModel {
            Entity("Sample") { Attribute("name", .stringAttributeType) }
        }
        return model.entitiesByName["Sample"] ?? NSEntityDescription()
    }()

    private final class Marker: NSObject {}

    @Test func exactFindsItsTypeHoweverBoxedAndRefusesOthers() {
        let set = NSSet(array: [1, 2])
        #expect(ClassReferences.exact(set as Any, as: NSSet.self) === set)
        #expect(ClassReferences.exact(set as AnyObject as Any, as: NSSet.self) === set)
        #expect(ClassReferences.exact(Optional<Any>.some(set), as: NSSet.self) === set)
        let refused: [Any?] = [
            nil, NSMutableSet(array: [1]), NSOrderedSet(array: [1]), [1, 2], Set([1, 2]), "set", 42, 4.5,
            Optional<NSSet>.none as Any, Optional<NSSet>.some(set) as Any, Marker(), (1, 2),
        ]
        for value in refused { #expect(ClassReferences.exact(value, as: NSSet.self) == nil) }
    }

    @Test func managedObjectFindsEveryEntityClassAndRefusesOthers() {
        let object = NSManagedObject(entity: Self.entity, insertInto: nil)
        #expect(ClassReferences.managedObject(object) === object)
        #expect(ClassReferences.managedObject(object as AnyObject) === object)
        #expect(ClassReferences.managedObject(NSSet(array: [object]).allObjects[0]) === object)
        let refused: [Any] = [Marker(), NSObject(), NSSet(), "object", 7, [object], Optional(object) as Any, UUID()]
        for value in refused { #expect(ClassReferences.managedObject(value) == nil) }
    }

    @Test func instanceFindsSubclassesAndRefusesOthers() {
        let marker = Marker()
        #expect(ClassReferences.instance(marker, of: NSObject.self) === marker)
        #expect(ClassReferences.instance(marker as AnyObject, of: Marker.self) === marker)
        let id = NSManagedObject(entity: Self.entity, insertInto: nil).objectID
        #expect(ClassReferences.instance(id, of: NSManagedObjectID.self) === id)
        let refused: [Any] = ["id", 1, [id], Optional(id) as Any, NSObject()]
        for value in refused { #expect(ClassReferences.instance(value, of: NSManagedObjectID.self) == nil) }
    }

    /// The instance read out is a strong reference: it outlives the container it came from.
    @Test func aReadReferenceKeepsItsObject() {
        weak var watched: Marker?
        var read: Marker?
        do {
            let marker = Marker()
            watched = marker
            var container: Any? = marker
            read = ClassReferences.exact(container, as: Marker.self)
            container = nil
            #expect(container == nil)
        }
        #expect(watched != nil)
        #expect(read === watched)
        read = nil
        #expect(watched == nil)
    }
}
