import Foundation

/// Why a model's classes cannot be generated: a name in the model that Swift cannot use,
/// or two entities generating the same class.
///
/// ```swift
/// do {
///     let source = try ClassGenerator(model: model).generate()
/// } catch {
///     print(error)   // entity Todo: "Todo Item" is not a valid Swift class name
/// }
/// ```
public struct CodegenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public enum Kind: Hashable, Sendable {
        /// The entity's class name is not a Swift identifier.
        case invalidClassName(String)
        /// A property's name is not a Swift identifier.
        case invalidPropertyName(String)
        /// Several generated entities have the same class name.
        case duplicateClassName(String, otherEntity: String)
    }

    /// What is wrong.
    public var kind: Kind
    /// The entity concerned.
    public var entity: String
    /// The property concerned, if any.
    public var property: String?

    /// An error of the given kind about an entity, and a property of it if given.
    public init(_ kind: Kind, entity: String, property: String? = nil) {
        self.kind = kind
        self.entity = entity
        self.property = property
    }

    /// The error in words, with the entity and property it concerns.
    public var description: String {
        let location = "entity \(entity)" + (property.map { ", property \($0)" } ?? "")
        switch kind {
        case .invalidClassName(let name):
            return "\(location): \"\(name)\" is not a valid Swift class name"
        case .invalidPropertyName(let name):
            return "\(location): \"\(name)\" is not a valid Swift property name"
        case .duplicateClassName(let name, let other):
            return "\(location): entity \(other) also generates class \(name)"
        }
    }
}
