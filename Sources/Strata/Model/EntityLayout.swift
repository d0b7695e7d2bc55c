import Foundation

/// An entity's properties by position, computed once: objects keep their values in arrays
/// indexed by these positions, so value access needs no per-object dictionaries.
final class EntityLayout: @unchecked Sendable {
    let properties: [NSPropertyDescription]
    let indexByName: [String: Int]

    init(entity: NSEntityDescription) {
        properties = entity.properties
        var indexByName: [String: Int] = [:]
        for (index, property) in properties.enumerated() where indexByName[property.name] == nil {
            indexByName[property.name] = index
        }
        self.indexByName = indexByName
    }
}

extension NSEntityDescription {
    /// The entity's layout. Computed on first use; models must not change after that.
    var layout: EntityLayout {
        layoutLock.lock()
        defer { layoutLock.unlock() }
        if let cached = cachedLayout, cached.properties.count == properties.count { return cached }
        let layout = EntityLayout(entity: self)
        cachedLayout = layout
        return layout
    }
}
