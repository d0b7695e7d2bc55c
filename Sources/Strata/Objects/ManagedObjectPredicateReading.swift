import Foundation

/// Predicates evaluated in memory read managed objects through key-value access; `entity`
/// and `objectID` answer as Core Data's key-value coding does when the entity has no
/// property of that name.
extension NSManagedObject: PredicateKeyValueReading {
    func predicateValue(forKey key: String) -> Any? {
        if layout.indexByName[key] != nil { return value(forKey: key) }
        switch key {
        case "objectID": return objectID
        case "entity": return entity
        default: return nil
        }
    }
}
