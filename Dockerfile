# One image recipe for every Vigil module; MODULE is the module's folder. Build context: the repository root.
#   docker build --build-arg MODULE=monitor-service -t vigil/monitor-service .
#   docker build --build-arg MODULE=tools/reference-receiver -t vigil/reference-receiver .
FROM eclipse-temurin:21-jdk AS build
ARG MODULE
WORKDIR /src
COPY . .
RUN test -n "$MODULE" || { echo "build with --build-arg MODULE=<module folder>" >&2; exit 1; } \
 && ./mvnw -B -q -pl "$MODULE" -am package -DskipTests \
 && mkdir /out \
 && cp -r "$MODULE/target/lib" /out/lib \
 && cp "$MODULE/target/$(basename "$MODULE")"-*.jar /out/app.jar

FROM eclipse-temurin:21-jre
RUN groupadd --system vigil && useradd --system --gid vigil --uid 10001 --no-create-home vigil
WORKDIR /app
COPY --from=build /out/ /app/
# The class-data-sharing archive (AppCDS) lives here: the first start of a container writes it when the
# JVM stops, every later start maps the classes from it instead of loading them (README, "The JVM flags
# the images use"). Mount a volume on /app/cds to keep it across containers of one image.
RUN mkdir /app/cds && chown vigil:vigil /app/cds
USER vigil
EXPOSE 8080
# The JVM flags every image uses (README, "The JVM flags the images use"); the footprint benchmark reads this line.
ENV JAVA_TOOL_OPTIONS="-XX:+UseSerialGC -Xms16m -Xmx128m -XX:+ExitOnOutOfMemoryError -XX:TrimNativeHeapInterval=5000 -XX:+AutoCreateSharedArchive -XX:SharedArchiveFile=/app/cds/app.jsa"
# Configuration comes only from the environment (see README, configuration reference); no secret is baked in.
ENTRYPOINT ["java", "-jar", "/app/app.jar"]
