import Foundation
import Strata

/// What a fetch asks for: the models of a type matching a `#Predicate`, sorted, a page of them.
public struct FetchDescriptor<T: PersistentModel>: @unchecked Sendable {
    public var predicate: Predicate<T>?
    public var sortBy: [SortDescriptor<T>]
    public var fetchLimit: Int?
    public var fetchOffset: Int?
    /// Whether models inserted, changed or deleted in the context and not yet saved count.
    public var includePendingChanges = true
    /// The properties read with each row (others are read when first used).
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// The relationships whose models are fetched with the rows, in one query each.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []

    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}

/// The errors SwiftData reports itself (Core Data's errors pass as they are).
public struct SwiftDataError: Error, Hashable, Sendable, CustomStringConvertible {
    let code: String
    let detail: String

    init(_ code: String, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { "SwiftDataError.\(code): \(detail)" }

    public static let loadIssueModelContainer = SwiftDataError(
        "loadIssueModelContainer", "The container's store could not be opened.")
    public static let unsupportedPredicate = SwiftDataError(
        "unsupportedPredicate", "The predicate uses a form the store cannot evaluate.")
    public static let unsupportedSortDescriptor = SwiftDataError(
        "unsupportedSortDescriptor", "The sort descriptor has no key path the store can sort by.")
    public static let unsupportedEnumerationMutation = SwiftDataError(
        "unsupportedEnumerationMutation", "Models of an enumeration were changed; pass allowEscapingMutations: true.")
    public static let unknownSchema = SwiftDataError(
        "unknownSchema", "The store's model matches none of the migration plan's schemas.")
}
