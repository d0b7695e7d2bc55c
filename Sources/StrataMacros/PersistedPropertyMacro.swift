import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@_PersistedProperty`: the accessors of a persisted property of a `@Model` class, which
/// the model's memberAttribute role attaches to each. For `var name: String`:
///
/// ```swift
/// var name: String {
///     @storageRestrictions(accesses: _$backingData, initializes: _name)
///     init(initialValue) {
///         SwiftData._withBacking(&_$backingData) { $0.setValue(initialValue, forKey: "name") }
///         _name = _SwiftDataNoType()
///     }
///     get {
///         _$observationRegistrar.access(self, keyPath: \.name)
///         return SwiftData._withBacking(&self._$backingData) { $0.getValue(forKey: "name") }
///     }
///     set {
///         _$observationRegistrar.withMutation(of: self, keyPath: \.name) {
///             SwiftData._withBacking(&self._$backingData) { $0.setValue(newValue, forKey: "name") }
///         }
///     }
/// }
/// @Transient private var _name: _SwiftDataNoType
/// ```
///
/// The init accessor of an optional property (`String?`, `String!`, `Optional<String>`) sets
/// nil only when the model holds values already (backing data, a row, or values set before): every
/// initialiser sets such a property to nil first, those of a fetched model included, and a
/// backing data made for that alone would be replaced at once (an allocation and a release for
/// each fetched row). Nil set with no values set before is nothing to record.
///
/// The key is the property's name without backticks. The peer `_name` is the storage the
/// init accessor initialises, so that definite initialisation sees the property set. On a
/// declaration `@Model` would not persist, the macro adds nothing (`@Model` reports why).
public struct PersistedPropertyMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let property = ModelMember(declaration).persisted else { return [] }
        let key = StringLiteralExprSyntax(content: property.key)
        let storage = property.storageName
        let initialiser: AccessorDeclSyntax =
            property.isOptional
            ? """
            @storageRestrictions(accesses: _$backingData, initializes: \(storage))
            init(initialValue) {
                \(storage) = _SwiftDataNoType()
                if initialValue == nil, _$backingData.isEmpty { return }
                SwiftData._withBacking(&_$backingData) { $0.setValue(initialValue, forKey: \(key)) }
            }
            """
            : """
            @storageRestrictions(accesses: _$backingData, initializes: \(storage))
            init(initialValue) {
                SwiftData._withBacking(&_$backingData) { $0.setValue(initialValue, forKey: \(key)) }
                \(storage) = _SwiftDataNoType()
            }
            """
        return [
            initialiser,
            """
            get {
                _$observationRegistrar.access(self, keyPath: \\.\(property.name))
                return SwiftData._withBacking(&self._$backingData) { $0.getValue(forKey: \(key)) }
            }
            """,
            """
            set {
                _$observationRegistrar.withMutation(of: self, keyPath: \\.\(property.name)) {
                    SwiftData._withBacking(&self._$backingData) { $0.setValue(newValue, forKey: \(key)) }
                }
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let property = ModelMember(declaration).persisted else { return [] }
        return ["@Transient private var \(property.storageName): _SwiftDataNoType"]
    }
}
