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
///         SwiftData._prepareBacking(&_$backingData).setValue(initialValue, forKey: "name")
///         _name = _SwiftDataNoType()
///     }
///     get {
///         _$observationRegistrar.access(self, keyPath: \.name)
///         return SwiftData._prepareBacking(&self._$backingData).getValue(forKey: "name")
///     }
///     set {
///         _$observationRegistrar.withMutation(of: self, keyPath: \.name) {
///             SwiftData._prepareBacking(&self._$backingData).setValue(newValue, forKey: "name")
///         }
///     }
/// }
/// @Transient private var _name: _SwiftDataNoType
/// ```
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
        return [
            """
            @storageRestrictions(accesses: _$backingData, initializes: \(storage))
            init(initialValue) {
                SwiftData._prepareBacking(&_$backingData).setValue(initialValue, forKey: \(key))
                \(storage) = _SwiftDataNoType()
            }
            """,
            """
            get {
                _$observationRegistrar.access(self, keyPath: \\.\(property.name))
                return SwiftData._prepareBacking(&self._$backingData).getValue(forKey: \(key))
            }
            """,
            """
            set {
                _$observationRegistrar.withMutation(of: self, keyPath: \\.\(property.name)) {
                    SwiftData._prepareBacking(&self._$backingData).setValue(newValue, forKey: \(key))
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
