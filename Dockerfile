# Every Vigil image, from one recipe. Build context: the repository root. One build stage compiles every module
# an image needs, once; each service is a small runtime target on JRE 21 that copies its own jar and libraries:
#   docker build --target monitor-service -t vigil/monitor-service .
#   docker build --target cdc-relay -t vigil/cdc-relay .
#   docker build --target notifier-consumer -t vigil/notifier-consumer .
#   docker build --target reference-receiver -t vigil/reference-receiver .
#   docker build --target local-stack -t vigil/local-stack .        (the demo targets of the compose stack)
# docker-compose.yaml builds them the same way (build.target). tools/compose-check/run.sh builds and runs them.

FROM eclipse-temurin:21-jdk AS build
WORKDIR /src
ENV MAVEN_OPTS="-XX:+UseSerialGC" \
    VIGIL_IMAGE_MODULES="monitor-service,cdc-relay,notifier-consumer,tools/reference-receiver,tools/local-stack"
# 1. The wrapper and every pom, then the dependencies: this layer is rebuilt only when a pom changes.
COPY mvnw pom.xml ./
COPY .mvn/ .mvn/
COPY bin/ bin/
COPY libs/alert-contract/pom.xml libs/alert-contract/
COPY libs/service-kit/pom.xml libs/service-kit/
COPY libs/monitor-schema/pom.xml libs/monitor-schema/
COPY testing/test-harness/pom.xml testing/test-harness/
COPY monitor-service/pom.xml monitor-service/
COPY cdc-relay/pom.xml cdc-relay/
COPY notifier-consumer/pom.xml notifier-consumer/
COPY tools/reference-receiver/pom.xml tools/reference-receiver/
COPY tools/kafka-connect/pom.xml tools/kafka-connect/
COPY tools/local-stack/pom.xml tools/local-stack/
COPY tools/fault-drills/pom.xml tools/fault-drills/
COPY tools/benchmarks/pom.xml tools/benchmarks/
# Packaging the modules without their sources fetches every plugin and dependency the real build uses.
RUN ./mvnw -B -q -pl "$VIGIL_IMAGE_MODULES" -am package -Dmaven.main.skip -Dmaven.test.skip=true \
      -Dspotless.check.skip=true -Dmaven.javadoc.skip \
 && rm -rf ./*/target ./*/*/target
# 2. The sources, then one build of every module the images need (tests run in CI, not here).
COPY . .
RUN ./mvnw -B -q -o -pl "$VIGIL_IMAGE_MODULES" -am package -Dmaven.test.skip=true -Dspotless.check.skip=true \
 && for module in $(echo "$VIGIL_IMAGE_MODULES" | tr ',' ' '); do \
      name=$(basename "$module"); \
      mkdir -p "/out/$name" \
      && cp -r "$module/target/lib" "/out/$name/lib" \
      && cp "$module/target/$name"-*.jar "/out/$name/app.jar" || exit 1; \
    done

# What every service image shares: JRE 21, a non-root user, the JVM flags and the CDS archive folder.
FROM eclipse-temurin:21-jre AS runtime
RUN groupadd --system vigil && useradd --system --gid vigil --uid 10001 --no-create-home vigil \
 && mkdir -p /app/cds && chown vigil:vigil /app/cds
WORKDIR /app
# The class-data-sharing archive (AppCDS) lives in /app/cds: the first start of a container writes it when the
# JVM stops, every later start maps the classes from it instead of loading them (README, "The JVM flags the
# images use"). Mount a volume on /app/cds to keep it across containers of one image.
USER vigil
EXPOSE 8080
# The JVM flags every image uses (README, "The JVM flags the images use"); the footprint benchmark reads this line.
ENV JAVA_TOOL_OPTIONS="-XX:+UseSerialGC -Xms16m -Xmx128m -XX:+ExitOnOutOfMemoryError -XX:TrimNativeHeapInterval=5000 -XX:TieredStopAtLevel=1 -XX:+AutoCreateSharedArchive -XX:SharedArchiveFile=/app/cds/app.jsa"
# Configuration comes only from the environment (see README, configuration reference); no secret is baked in.
ENTRYPOINT ["java", "-jar", "/app/app.jar"]

FROM runtime AS monitor-service
COPY --from=build /out/monitor-service/ /app/

FROM runtime AS cdc-relay
COPY --from=build /out/cdc-relay/ /app/

FROM runtime AS notifier-consumer
COPY --from=build /out/notifier-consumer/ /app/

FROM runtime AS reference-receiver
COPY --from=build /out/reference-receiver/ /app/

FROM runtime AS local-stack
COPY --from=build /out/local-stack/ /app/
