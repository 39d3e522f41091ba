using System.ComponentModel;
using System.Globalization;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text;

namespace SlimPool.Tests.Api;

/// <summary>
/// Writes the public surface of an assembly (what another assembly can see: public members, and protected
/// ones of types it can derive from) as canonical text, one line per type or member, by reflection. Types come
/// in ordinal order of their full names, each one's line first, then its members' lines in ordinal order. Every
/// line starts with the full name of what it describes, so a line means the same wherever it stands.
/// </summary>
/// <remarks>
/// <para>Line formats (examples):</para>
/// <code>
/// N.Widget: public sealed class : N.Base, System.IDisposable
/// N.Widget.Widget(string! name, int count = 3): public constructor
/// N.Widget.Run&lt;T&gt;(System.Func&lt;T&gt;! function, params object?[]! args): public static method -> T where T : struct
/// N.Widget.Name: public property { get; init; } -> string?
/// N.Widget.Changed: public event -> System.EventHandler?
/// N.Widget.Limit: public const field -> int = 10
/// N.Color.Red: enum member = 1
/// </code>
/// <para>Nullable annotations come from <see cref="NullabilityInfoContext"/>: <c>!</c> a reference that is
/// never null, <c>?</c> one that may be, nothing where the code is nullable-oblivious. Base types, interfaces
/// and constraints are written without annotations, and so is a type parameter <c>T</c> not constrained to a
/// class: reflection does not tell those apart reliably (<c>T</c> and <c>T?</c> both read as nullable).</para>
/// </remarks>
internal static class PublicApiListing
{
    private const BindingFlags Declared = BindingFlags.DeclaredOnly | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static;

    private static readonly Dictionary<Type, string> s_keywords = new()
    {
        [typeof(void)] = "void",
        [typeof(object)] = "object",
        [typeof(string)] = "string",
        [typeof(bool)] = "bool",
        [typeof(char)] = "char",
        [typeof(byte)] = "byte",
        [typeof(sbyte)] = "sbyte",
        [typeof(short)] = "short",
        [typeof(ushort)] = "ushort",
        [typeof(int)] = "int",
        [typeof(uint)] = "uint",
        [typeof(long)] = "long",
        [typeof(ulong)] = "ulong",
        [typeof(nint)] = "nint",
        [typeof(nuint)] = "nuint",
        [typeof(float)] = "float",
        [typeof(double)] = "double",
        [typeof(decimal)] = "decimal",
    };

    /// <summary>The listing of every visible type of <paramref name="assembly"/>.</summary>
    public static IReadOnlyList<string> ForAssembly(Assembly assembly)
    {
        ArgumentNullException.ThrowIfNull(assembly);
        return Create(assembly.GetTypes());
    }

    /// <summary>The listing of those of <paramref name="types"/> that another assembly can see (the others are skipped).</summary>
    public static IReadOnlyList<string> Create(IEnumerable<Type> types)
    {
        ArgumentNullException.ThrowIfNull(types);
        var context = new NullabilityInfoContext(); // not thread-safe: one per listing
        var lines = new List<string>();
        foreach (Type type in types.Where(IsVisible).Distinct().OrderBy(t => TypeName(t, null), StringComparer.Ordinal))
        {
            lines.Add(TypeLine(type));
            var members = new List<string>();
            AddMembers(type, context, members);
            members.Sort(StringComparer.Ordinal);
            lines.AddRange(members);
        }

        return lines;
    }

    /// <summary>The lines as a file: each line ended by <c>\n</c>.</summary>
    public static string ToText(IEnumerable<string> lines) => string.Concat(lines.Select(line => line + "\n"));

    private static bool IsVisible(Type type)
    {
        if (type.IsNested)
        {
            return (type.IsNestedPublic || type.IsNestedFamily || type.IsNestedFamORAssem) && IsVisible(type.DeclaringType!);
        }

        return type.IsPublic;
    }

    private static bool IsVisible(MethodBase? method) => method is not null && (method.IsPublic || method.IsFamily || method.IsFamilyOrAssembly);

    private static bool IsVisible(FieldInfo field) => field.IsPublic || field.IsFamily || field.IsFamilyOrAssembly;

    private static string Access(MethodBase method) => method.IsPublic ? "public" : "protected";

    private static string TypeLine(Type type)
    {
        var line = new StringBuilder();
        line.Append(TypeName(type, null)).Append(": ").Append(Attributes(type));
        line.Append(type.IsPublic || type.IsNestedPublic ? "public" : "protected");

        if (IsDelegate(type))
        {
            MethodInfo invoke = type.GetMethod("Invoke")!;
            var context = new NullabilityInfoContext();
            line.Append(" delegate ").Append(Parameters(invoke, context)).Append(" -> ").Append(ReturnType(invoke, context));
            return line.Append(Constraints(type.GetGenericArguments())).ToString();
        }

        if (type.IsEnum)
        {
            return line.Append(" enum : ").Append(TypeName(Enum.GetUnderlyingType(type), null)).ToString();
        }

        if (type.IsInterface)
        {
            line.Append(" interface");
        }
        else if (type.IsValueType)
        {
            if (type.IsDefined(typeof(IsReadOnlyAttribute), false))
            {
                line.Append(" readonly");
            }

            if (type.IsByRefLike)
            {
                line.Append(" ref");
            }

            line.Append(" struct");
        }
        else
        {
            if (type.IsAbstract && type.IsSealed)
            {
                line.Append(" static");
            }
            else if (type.IsAbstract)
            {
                line.Append(" abstract");
            }
            else if (type.IsSealed)
            {
                line.Append(" sealed");
            }

            line.Append(type.GetMethod("<Clone>$", Declared) is null ? " class" : " record");
        }

        var bases = new List<string>();
        if (type.BaseType is { } baseType && baseType != typeof(object) && baseType != typeof(ValueType))
        {
            bases.Add(TypeName(baseType, null));
        }

        bases.AddRange(type.GetInterfaces().Where(IsVisible).Select(i => TypeName(i, null)).Order(StringComparer.Ordinal));
        if (bases.Count > 0)
        {
            line.Append(" : ").AppendJoin(", ", bases);
        }

        return line.Append(Constraints(type.GetGenericArguments())).ToString();
    }

    private static void AddMembers(Type type, NullabilityInfoContext context, List<string> members)
    {
        if (IsDelegate(type))
        {
            return; // the type's line has the signature
        }

        string owner = TypeName(type, null);
        if (type.IsEnum)
        {
            foreach (FieldInfo field in type.GetFields(BindingFlags.Public | BindingFlags.Static))
            {
                members.Add($"{owner}.{field.Name}: {Attributes(field)}enum member = {Convert.ToString(field.GetRawConstantValue(), CultureInfo.InvariantCulture)}");
            }

            return;
        }

        var accessors = new HashSet<MethodInfo>();
        foreach (PropertyInfo property in type.GetProperties(Declared))
        {
            accessors.UnionWith(property.GetAccessors(nonPublic: true));
            if (PropertyLine(owner, property, context) is { } line)
            {
                members.Add(line);
            }
        }

        foreach (EventInfo @event in type.GetEvents(Declared))
        {
            accessors.UnionWith(new[] { @event.AddMethod, @event.RemoveMethod, @event.RaiseMethod }.OfType<MethodInfo>());
            MethodInfo? add = @event.AddMethod;
            if (IsVisible(add))
            {
                NullabilityInfo info = context.Create(@event);
                members.Add($"{owner}.{@event.Name}: {Attributes(@event)}{Access(add!)}{Modifiers(add!, type)} event -> {TypeName(@event.EventHandlerType!, info.ReadState, info)}");
            }
        }

        foreach (ConstructorInfo constructor in type.GetConstructors(BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance))
        {
            if (IsVisible(constructor))
            {
                members.Add($"{owner}.{SimpleName(type)}{Parameters(constructor, context)}: {Attributes(constructor)}{Access(constructor)} constructor");
            }
        }

        foreach (MethodInfo method in type.GetMethods(Declared))
        {
            if (!IsVisible(method) || accessors.Contains(method))
            {
                continue;
            }

            Type[] generics = method.GetGenericArguments();
            string genericList = generics.Length == 0 ? "" : $"<{string.Join(", ", generics.Select(g => g.Name))}>";
            members.Add($"{owner}.{method.Name}{genericList}{Parameters(method, context)}: {Attributes(method)}{Access(method)}{Modifiers(method, type)} method -> {ReturnType(method, context)}{Constraints(generics)}");
        }

        foreach (FieldInfo field in type.GetFields(Declared))
        {
            if (!IsVisible(field))
            {
                continue;
            }

            string access = field.IsPublic ? "public" : "protected";
            if (field.IsLiteral)
            {
                members.Add($"{owner}.{field.Name}: {Attributes(field)}{access} const field -> {TypeName(field.FieldType, null)} = {Literal(field.GetRawConstantValue(), field.FieldType)}");
                continue;
            }

            NullabilityInfo info = context.Create(field);
            string modifiers = (field.IsStatic ? " static" : "") + (field.IsInitOnly ? " readonly" : "");
            members.Add($"{owner}.{field.Name}: {Attributes(field)}{access}{modifiers} field -> {TypeName(field.FieldType, info.ReadState, info)}");
        }
    }

    private static string? PropertyLine(string owner, PropertyInfo property, NullabilityInfoContext context)
    {
        MethodInfo? getter = property.GetMethod;
        MethodInfo? setter = property.SetMethod;
        bool showGet = IsVisible(getter);
        bool showSet = IsVisible(setter);
        if (!showGet && !showSet)
        {
            return null;
        }

        // The property's access is that of its most accessible visible accessor; another accessor names its own.
        MethodInfo main = showGet && (getter!.IsPublic || !showSet || !setter!.IsPublic) ? getter! : setter!;
        string access = Access(main);
        var accessorList = new StringBuilder("{ ");
        if (showGet)
        {
            accessorList.Append(Access(getter!) == access ? "" : Access(getter!) + " ").Append("get; ");
        }

        if (showSet)
        {
            bool init = setter!.ReturnParameter.GetRequiredCustomModifiers().Contains(typeof(IsExternalInit));
            accessorList.Append(Access(setter) == access ? "" : Access(setter) + " ").Append(init ? "init; " : "set; ");
        }

        accessorList.Append('}');

        ParameterInfo[] index = property.GetIndexParameters();
        string name = index.Length == 0 ? property.Name : $"this[{string.Join(", ", index.Select(p => Parameter(p, context)))}]";
        NullabilityInfo info = context.Create(property);
        string type = TypeName(property.PropertyType, showGet ? info.ReadState : info.WriteState, info);
        return $"{owner}.{name}: {Attributes(property)}{access}{Modifiers(main, property.DeclaringType!)} property {accessorList} -> {type}";
    }

    private static string Modifiers(MethodInfo method, Type owner)
    {
        if (owner.IsInterface)
        {
            return (method.IsStatic ? " static" : "") + (method.IsAbstract ? " abstract" : method.IsVirtual ? " virtual" : "");
        }

        if (method.IsStatic)
        {
            return " static";
        }

        if (!method.IsVirtual)
        {
            return "";
        }

        bool newSlot = (method.Attributes & MethodAttributes.VtableLayoutMask) == MethodAttributes.NewSlot;
        if (method.IsAbstract)
        {
            return newSlot ? " abstract" : " abstract override";
        }

        if (newSlot)
        {
            // virtual final newslot: a non-virtual method that implements an interface member.
            return method.IsFinal ? "" : " virtual";
        }

        return method.IsFinal ? " sealed override" : " override";
    }

    private static string Parameters(MethodBase method, NullabilityInfoContext context) =>
        "(" + string.Join(", ", method.GetParameters().Select((p, i) =>
            (i == 0 && method.IsDefined(typeof(ExtensionAttribute), false) ? "this " : "") + Parameter(p, context))) + ")";

    private static string Parameter(ParameterInfo parameter, NullabilityInfoContext context)
    {
        var text = new StringBuilder();
        if (parameter.IsDefined(typeof(ParamArrayAttribute), false) || parameter.IsDefined(typeof(ParamCollectionAttribute), false))
        {
            text.Append("params ");
        }

        Type type = parameter.ParameterType;
        bool isOut = false;
        if (type.IsByRef)
        {
            isOut = parameter.IsOut && !parameter.IsIn;
            text.Append(isOut ? "out " : parameter.IsIn ? "in " : "ref ");
            type = type.GetElementType()!;
        }

        NullabilityInfo info = context.Create(parameter);
        text.Append(TypeName(type, isOut ? info.ReadState : info.WriteState, info.Type.IsByRef ? null : info));
        text.Append(' ').Append(parameter.Name);
        if (parameter.HasDefaultValue)
        {
            text.Append(" = ").Append(Literal(parameter.RawDefaultValue, type));
        }
        else if (parameter.IsOptional)
        {
            text.Append(" = <optional>");
        }

        return text.ToString();
    }

    private static string ReturnType(MethodInfo method, NullabilityInfoContext context)
    {
        Type type = method.ReturnType;
        string prefix = "";
        if (type.IsByRef)
        {
            prefix = method.ReturnParameter.IsDefined(typeof(IsReadOnlyAttribute), false) ? "ref readonly " : "ref ";
            type = type.GetElementType()!;
        }

        NullabilityInfo info = context.Create(method.ReturnParameter);
        return prefix + TypeName(type, info.ReadState, info.Type.IsByRef ? null : info);
    }

    private static string Literal(object? value, Type type)
    {
        Type? underlying = Nullable.GetUnderlyingType(type);
        if (value is null)
        {
            return type.IsValueType && underlying is null ? "default" : "null";
        }

        Type valueType = underlying ?? type;
        if (valueType.IsEnum)
        {
            object member = Enum.ToObject(valueType, value);
            return Enum.IsDefined(valueType, member)
                ? $"{TypeName(valueType, null)}.{member}"
                : $"({TypeName(valueType, null)}){Convert.ToString(value, CultureInfo.InvariantCulture)}";
        }

        return value switch
        {
            string s => "\"" + s.Replace("\\", "\\\\", StringComparison.Ordinal).Replace("\"", "\\\"", StringComparison.Ordinal).Replace("\n", "\\n", StringComparison.Ordinal).Replace("\r", "\\r", StringComparison.Ordinal) + "\"",
            char c => $"'{c}'",
            bool b => b ? "true" : "false",
            float f => f.ToString("R", CultureInfo.InvariantCulture) + "f",
            double d => d.ToString("R", CultureInfo.InvariantCulture),
            decimal m => m.ToString(CultureInfo.InvariantCulture) + "m",
            _ => Convert.ToString(value, CultureInfo.InvariantCulture) ?? "",
        };
    }

    private static string Constraints(Type[] genericArguments)
    {
        var text = new StringBuilder();
        foreach (Type parameter in genericArguments.Where(g => g.IsGenericParameter))
        {
            var constraints = new List<string>();
            GenericParameterAttributes attributes = parameter.GenericParameterAttributes;
            bool isStruct = (attributes & GenericParameterAttributes.NotNullableValueTypeConstraint) != 0;
            if (isStruct)
            {
                constraints.Add(parameter.CustomAttributes.Any(a => a.AttributeType.FullName == "System.Runtime.CompilerServices.IsUnmanagedAttribute") ? "unmanaged" : "struct");
            }
            else if ((attributes & GenericParameterAttributes.ReferenceTypeConstraint) != 0)
            {
                constraints.Add("class");
            }

            constraints.AddRange(parameter.GetGenericParameterConstraints()
                .Where(c => c != typeof(ValueType))
                .Select(c => TypeName(c, null))
                .Order(StringComparer.Ordinal));
            if ((attributes & GenericParameterAttributes.DefaultConstructorConstraint) != 0 && !isStruct)
            {
                constraints.Add("new()");
            }

            if ((attributes & GenericParameterAttributes.AllowByRefLike) != 0)
            {
                constraints.Add("allows ref struct");
            }

            if (constraints.Count > 0)
            {
                text.Append(" where ").Append(parameter.Name).Append(" : ").AppendJoin(", ", constraints);
            }
        }

        return text.ToString();
    }

    private static string Attributes(MemberInfo member)
    {
        var text = new StringBuilder();
        if (member.GetCustomAttribute<ObsoleteAttribute>(false) is { } obsolete)
        {
            text.Append(obsolete.IsError ? "[Obsolete(error)] " : "[Obsolete] ");
        }

        if (member is Type type && type.IsEnum && type.IsDefined(typeof(FlagsAttribute), false))
        {
            text.Append("[Flags] ");
        }

        if (member.GetCustomAttribute<EditorBrowsableAttribute>(false) is { State: EditorBrowsableState.Never })
        {
            text.Append("[EditorBrowsable(Never)] ");
        }

        return text.ToString();
    }

    private static bool IsDelegate(Type type) => type.IsSubclassOf(typeof(Delegate)) && type != typeof(MulticastDelegate);

    private static string SimpleName(Type type)
    {
        int tick = type.Name.IndexOf('`', StringComparison.Ordinal);
        return tick < 0 ? type.Name : type.Name[..tick];
    }

    private static string TypeName(Type type, NullabilityInfo? info) => TypeName(type, info?.ReadState ?? NullabilityState.Unknown, info);

    // The C# name of a type, with its namespace (keywords for the built-in types), generic arguments, and the
    // annotation state gives when it is a reference type or a type parameter; info supplies the annotations of
    // its generic arguments and array elements (null: none written).
    private static string TypeName(Type type, NullabilityState state, NullabilityInfo? info)
    {
        if (type.IsByRef)
        {
            return "ref " + TypeName(type.GetElementType()!, state, info);
        }

        if (type.IsPointer)
        {
            return TypeName(type.GetElementType()!, NullabilityState.Unknown, null) + "*";
        }

        if (type.IsArray)
        {
            NullabilityInfo? element = info?.ElementType;
            string rank = type.GetArrayRank() == 1 ? "[]" : $"[{new string(',', type.GetArrayRank() - 1)}]";
            return TypeName(type.GetElementType()!, element?.ReadState ?? NullabilityState.Unknown, element) + rank + Annotation(state);
        }

        if (type.IsGenericParameter)
        {
            return type.Name + (state == NullabilityState.Nullable && IsNonNullableTypeParameter(type) ? "?" : "");
        }

        if (Nullable.GetUnderlyingType(type) is { } underlying)
        {
            NullabilityInfo? inner = info is { GenericTypeArguments.Length: 1 } ? info.GenericTypeArguments[0] : null;
            return TypeName(underlying, NullabilityState.Unknown, inner) + "?";
        }

        if (s_keywords.TryGetValue(type, out string? keyword))
        {
            return keyword + (type.IsValueType ? "" : Annotation(state));
        }

        Type[] arguments = type.GetGenericArguments();
        NullabilityInfo[]? argumentInfos = info is not null && info.GenericTypeArguments.Length == arguments.Length ? info.GenericTypeArguments : null;

        // Outermost declaring type first; each level takes its own share of the generic arguments.
        var chain = new List<Type>();
        for (Type? level = type; level is not null; level = level.DeclaringType)
        {
            chain.Insert(0, level);
        }

        var name = new StringBuilder();
        if (!string.IsNullOrEmpty(type.Namespace))
        {
            name.Append(type.Namespace).Append('.');
        }

        int used = 0;
        for (int i = 0; i < chain.Count; i++)
        {
            if (i > 0)
            {
                name.Append('.');
            }

            name.Append(SimpleName(chain[i]));
            int total = chain[i].IsGenericType ? chain[i].GetGenericTypeDefinition().GetGenericArguments().Length : 0;
            if (total > used)
            {
                name.Append('<');
                for (int a = used; a < total; a++)
                {
                    if (a > used)
                    {
                        name.Append(", ");
                    }

                    NullabilityInfo? argumentInfo = argumentInfos?[a];
                    name.Append(TypeName(arguments[a], argumentInfo?.ReadState ?? NullabilityState.Unknown, argumentInfo));
                }

                name.Append('>');
                used = total;
            }
        }

        return name + (type.IsValueType ? "" : Annotation(state));
    }

    // Reflection reports T and T? alike (nullable) when T is unconstrained, so "?" is written only on a type
    // parameter constrained to a non-nullable class (class, or a class type, without "class?").
    private static bool IsNonNullableTypeParameter(Type parameter)
    {
        bool classConstrained = (parameter.GenericParameterAttributes & GenericParameterAttributes.ReferenceTypeConstraint) != 0
            || parameter.GetGenericParameterConstraints().Any(c => c.IsClass && c != typeof(ValueType));
        bool nullableConstraint = parameter.CustomAttributes.Any(a =>
            a.AttributeType.FullName == "System.Runtime.CompilerServices.NullableAttribute"
            && a.ConstructorArguments is [{ Value: (byte)2 }]);
        return classConstrained && !nullableConstraint;
    }

    private static string Annotation(NullabilityState state) => state switch
    {
        NullabilityState.NotNull => "!",
        NullabilityState.Nullable => "?",
        _ => "",
    };
}
