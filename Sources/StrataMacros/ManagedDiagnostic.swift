import SwiftDiagnostics

/// The errors `@Managed` reports on declarations it cannot manage.
enum ManagedDiagnostic: DiagnosticMessage, Equatable {
    case notAProperty
    case letProperty
    case staticProperty
    case lazyProperty
    case notAnIdentifier
    case initialValue(String)
    case accessors(String)
    case missingType(String)

    var message: String {
        switch self {
        case .notAProperty:
            "@Managed applies only to properties"
        case .letProperty:
            "@Managed requires 'var': a managed property is read and written through its object"
        case .staticProperty:
            "@Managed applies only to instance properties; managed values belong to objects"
        case .lazyProperty:
            "@Managed cannot be applied to a 'lazy' property"
        case .notAnIdentifier:
            "@Managed requires a plain property name, not a pattern"
        case .initialValue(let name):
            "@Managed property '\(name)' cannot have an initial value; default values come from the model"
        case .accessors(let name):
            "@Managed property '\(name)' cannot have accessors or observers; @Managed provides its accessors"
        case .missingType(let name):
            "@Managed property '\(name)' needs an explicit type annotation"
        }
    }

    var diagnosticID: MessageID {
        let id: String
        switch self {
        case .notAProperty: id = "notAProperty"
        case .letProperty: id = "letProperty"
        case .staticProperty: id = "staticProperty"
        case .lazyProperty: id = "lazyProperty"
        case .notAnIdentifier: id = "notAnIdentifier"
        case .initialValue: id = "initialValue"
        case .accessors: id = "accessors"
        case .missingType: id = "missingType"
        }
        return MessageID(domain: "StrataMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}

/// The fixes offered with `@Managed`'s errors.
enum ManagedFixIt: FixItMessage {
    case useVar
    case removeInitialValue

    var message: String {
        switch self {
        case .useVar: "Replace 'let' with 'var'"
        case .removeInitialValue: "Remove the initial value"
        }
    }

    var fixItID: MessageID {
        switch self {
        case .useVar: MessageID(domain: "StrataMacros", id: "useVar")
        case .removeInitialValue: MessageID(domain: "StrataMacros", id: "removeInitialValue")
        }
    }
}
