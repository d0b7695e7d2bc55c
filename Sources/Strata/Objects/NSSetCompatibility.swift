import Foundation

/// `tags ?? []` with an `NSSet?` to-many property, as Core Data code writes it
/// (`todo.removeFromTags(todo.tags ?? [])`). On Apple's systems `NSSet` is expressible by an
/// array literal; on Linux it is not, so the empty literal needs this overload.
public func ?? (set: NSSet?, empty: @autoclosure () -> [Any]) -> NSSet {
    set ?? NSSet(array: empty())
}

/// `items ?? []` with an `NSOrderedSet?` ordered to-many property.
public func ?? (set: NSOrderedSet?, empty: @autoclosure () -> [Any]) -> NSOrderedSet {
    set ?? NSOrderedSet(array: empty())
}
